import type { LockHandle } from '@zk-recipes/core';

/**
 * Proof of holding every member of a multi-lock, returned by `acquire()`. Release it exactly
 * once: with `release()`, or by `await using`.
 */
export interface MultiLockHandle extends AsyncDisposable {
  /** Each member's own handle, in acquisition order. */
  readonly members: readonly LockHandle[];
  /** The members' lock directories, in acquisition order. */
  readonly lockPaths: readonly string[];
  /** The members' ZooKeeper node paths, in acquisition order. */
  readonly paths: readonly string[];
  /** The members' fencing tokens (node `czxid`s), in acquisition order. */
  readonly fencingTokens: readonly bigint[];
  /** When the last member was granted (`performance.now()` clock, see `LockHandle.grantedAt`): all were held from then. */
  readonly grantedAt: number;
  /** Aborted as soon as ownership of ANY member is lost: stop the guarded work then. */
  readonly signal: AbortSignal;
  /** True until this handle is released. */
  readonly held: boolean;
  /**
   * Releases every member, last acquired first, attempting all even when some fail.
   * @throws MultiReleaseError (`MULTI_RELEASE_FAILED`, failures in `errors`) if any member failed;
   * NotOwnerError (`NOT_OWNER`) if this handle was already released.
   */
  release(): Promise<void>;
}
