import { UpgradeNotSupportedError, type AcquireOptions } from '@zk-recipes/core';
import { QueueLock, type Acquisition, type LockQueue, type QueueSeat } from '@zk-recipes/core/recipe-kit';
import type { ReadWriteNaming } from './naming.js';
import { writeRule } from './rules.js';

/**
 * The exclusive half of an {@link InterProcessReadWriteLock}: held by one async context at a time,
 * and only when no reader holds the lock. Re-entrant by async context, like `InterProcessMutex`.
 * Obtain it with `readWriteLock.writeLock()`.
 */
export class WriteLock extends QueueLock {
  /** @internal */
  constructor(
    queue: LockQueue,
    naming: ReadWriteNaming,
    data: Uint8Array | null,
    private readonly readHeldByCurrentContext: () => boolean,
  ) {
    super({ queue, kind: naming.write, rule: writeRule(naming), reentrant: true, data, name: 'InterProcessReadWriteLock.writeLock', recipe: 'write-lock' });
  }

  /**
   * Upgrade (the calling context holds only the read lock) is refused at once: our own read node
   * would sit ahead of the write node, and the write could never be granted.
   */
  protected override acquireIn(options: AcquireOptions): Acquisition {
    if (!this.isOwnedByCurrentContext() && this.readHeldByCurrentContext()) {
      const refused = new UpgradeNotSupportedError(
        `${this.config.name}.acquire: this async context holds the read lock of ${this.path}; ` +
          'release it before acquiring the write lock (upgrading would deadlock)',
      );
      return { frame: undefined, acquired: Promise.reject(refused) };
    }
    return super.acquireIn(options);
  }

  /** @internal The calling context's write-lock node, if it holds the write lock. */
  seatOfCurrentContext(): QueueSeat | undefined {
    return this.holdingOfCurrentContext()?.seat;
  }
}
