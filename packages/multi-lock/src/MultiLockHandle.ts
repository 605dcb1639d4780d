import type { LockHandle } from '@zk-recipes/core';

/**
 * Proof of holding every member of a multi-lock, returned by `acquire()`. Release it exactly
 * once: with `release()`, or by `await using` (a release the server refuses then rejects with
 * ReleaseFailedError, `RELEASE_FAILED`, carrying this handle).
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
  /**
   * Aborts as soon as ANY member's signal does (its session ended or may have, its node was
   * deleted), or when `release()` is called (`RELEASED`, from the call on): stop the guarded work
   * then. Reading it first runs the members' checks (see `held`), so a process woken from a stop
   * past its session sees it aborted on its first read.
   */
  readonly signal: AbortSignal;
  /**
   * Every member still ours, checked now (each member's own `held`: its node not known deleted, its
   * session unable to have expired yet by this process's clock), and `release()` not called.
   * False does not mean released: release the handle once, a lost one too.
   */
  readonly held: boolean;
  /**
   * Releases every member not given back yet, last acquired first, attempting all even when some
   * fail; from the call on the handle is not held and its `signal` is aborted (`RELEASED`). When
   * the server refuses some members' deletes (`NO_AUTH`...) the others are released and those keep
   * their nodes: call `release()` again once the cause is fixed to give back the rest.
   * @throws MultiReleaseError (`MULTI_RELEASE_FAILED`, failures in `errors`, the members'
   * directories in `released` and `stillHeld`) if any member failed; NotOwnerError (`NOT_OWNER`)
   * if this handle was already released (or is being released).
   */
  release(): Promise<void>;
}
