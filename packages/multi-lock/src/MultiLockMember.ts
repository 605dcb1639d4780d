import type { AcquireOptions, LockHandle } from '@zk-recipes/core';

/**
 * What a multi-lock needs from each of its members: the lock API every zk-recipes lock exposes
 * (`InterProcessMutex`, `InterProcessSemaphoreMutex`, a read/write lock's `readLock()` /
 * `writeLock()`), typed structurally so any object with the same shape can take part.
 */
export interface MultiLockMember {
  /** The lock's directory in ZooKeeper; the canonical acquisition order sorts by it. */
  readonly path: string;
  /**
   * Waits for the lock within `options.timeoutMs` (`LOCK_TIMEOUT`) unless `options.signal` aborts
   * first (`ABORTED`), leaving no node behind on failure, and returns a handle to release it with.
   */
  acquire(options?: AcquireOptions): Promise<LockHandle>;
}

/** True when `value` has the shape of a {@link MultiLockMember}. */
export function isMultiLockMember(value: unknown): value is MultiLockMember {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as { path?: unknown; acquire?: unknown };
  return typeof candidate.path === 'string' && typeof candidate.acquire === 'function';
}
