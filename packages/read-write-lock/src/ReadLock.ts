import type { AcquireOptions } from '@zk-recipes/core';
import { currentFrame, OwnerFrame, QueueLock, type Acquisition, type LockQueue } from '@zk-recipes/core/recipe-kit';
import { createDowngradeSeat } from './downgrade.js';
import type { ReadWriteNaming } from './naming.js';
import { readRule } from './rules.js';
import type { WriteLock } from './WriteLock.js';

/**
 * The shared half of an {@link InterProcessReadWriteLock}: any number of async contexts (in any
 * processes) hold it together while no writer holds or waits ahead of them. Re-entrant by async
 * context. The holder of the write lock gets it at once (downgrade). Obtain it with
 * `readWriteLock.readLock()`.
 */
export class ReadLock extends QueueLock {
  /** @internal */
  constructor(
    queue: LockQueue,
    private readonly naming: ReadWriteNaming,
    data: Uint8Array | null,
    private readonly writeLock: WriteLock,
  ) {
    super({ queue, kind: naming.read, rule: readRule(naming), reentrant: true, data, name: 'InterProcessReadWriteLock.readLock', recipe: 'read-lock' });
  }

  /** A context that holds the write lock (and not yet the read lock) downgrades instead of queueing. */
  protected override acquireIn(options: AcquireOptions): Acquisition {
    if (this.isOwnedByCurrentContext()) return super.acquireIn(options);
    const writeSeat = this.writeLock.seatOfCurrentContext();
    if (writeSeat === undefined) return super.acquireIn(options);
    const frame = new OwnerFrame(currentFrame());
    const seat = createDowngradeSeat({
      queue: this.config.queue,
      writeSeat,
      naming: this.naming,
      data: this.config.data ?? null,
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      what: `${this.config.name}.acquire ${this.path}`,
    });
    return { frame, seat };
  }
}
