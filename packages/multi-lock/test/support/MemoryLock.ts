import { AbortedError, LockTimeoutError, NotOwnerError, type AcquireOptions, type LockHandle } from '@zk-recipes/core';

/**
 * An in-process exclusive lock with the member API, for unit tests of the multi-lock's own logic
 * (ordering, deadline, rollback, release aggregation) without a server. Not re-entrant.
 */
export class MemoryLock {
  /** Every call, in order, for assertions: `acquire <path> <timeoutMs>` / `release <path>`. */
  static readonly log: string[] = [];
  private holder: MemoryHandle | undefined;
  private readonly waiters: Array<() => void> = [];
  /** The options each acquire received. */
  readonly received: AcquireOptions[] = [];
  /** Makes the next release of a handle fail (after actually releasing nothing). */
  failRelease = false;

  constructor(readonly path: string) {}

  /** The handle that holds the lock now, if any. */
  get current(): LockHandle | undefined {
    return this.holder;
  }

  get isHeld(): boolean {
    return this.holder !== undefined;
  }

  acquire(options: AcquireOptions = {}): Promise<LockHandle> {
    this.received.push(options);
    MemoryLock.log.push(`acquire ${this.path} ${options.timeoutMs ?? '-'}`);
    return new Promise<LockHandle>((resolve, reject) => {
      const { timeoutMs, signal } = options;
      let timer: NodeJS.Timeout | undefined;
      const cleanup = () => {
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const index = this.waiters.indexOf(tryTake);
        if (index >= 0) this.waiters.splice(index, 1);
      };
      const onAbort = () => {
        cleanup();
        reject(new AbortedError(`${this.path}: aborted`, { cause: signal?.reason }));
      };
      const tryTake = (): boolean => {
        if (this.holder !== undefined) return false;
        cleanup();
        this.holder = new MemoryHandle(this);
        resolve(this.holder);
        return true;
      };
      if (signal?.aborted) return onAbort();
      if (tryTake()) return;
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          cleanup();
          reject(new LockTimeoutError(`${this.path}: timed out after ${timeoutMs} ms`));
        }, timeoutMs);
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(tryTake);
    });
  }

  /** @internal */
  releaseHandle(handle: MemoryHandle): Promise<void> {
    MemoryLock.log.push(`release ${this.path}`);
    if (this.failRelease) return Promise.reject(new Error(`${this.path}: release failed`));
    if (this.holder !== handle) return Promise.reject(new NotOwnerError(`${this.path}: not held`));
    this.holder = undefined;
    this.waiters[0]?.();
    return Promise.resolve();
  }
}

let nextToken = 1n;

class MemoryHandle implements LockHandle {
  readonly fencingToken = nextToken++;
  readonly grantedAt = performance.now();
  readonly controller = new AbortController();
  constructor(private readonly lock: MemoryLock) {}
  get path(): string {
    return `${this.lock.path}/node`;
  }
  get signal(): AbortSignal {
    return this.controller.signal;
  }
  get held(): boolean {
    return this.lock.isHeld;
  }
  release(): Promise<void> {
    return this.lock.releaseHandle(this);
  }
  async [Symbol.asyncDispose](): Promise<void> {
    await this.release();
  }
}

/** The controller behind a MemoryLock handle's signal (to simulate losing ownership). */
export function lose(handle: LockHandle, reason: Error): void {
  (handle as MemoryHandle).controller.abort(reason);
}
