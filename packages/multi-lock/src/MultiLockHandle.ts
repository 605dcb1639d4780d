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
   * Aborted as soon as ownership of ANY member is lost, or a release gave back only some members
   * (reason: the MultiReleaseError, naming them): stop the guarded work then.
   */
  readonly signal: AbortSignal;
  /**
   * True while every member is held: false once released, and once a release gave back only some
   * of them (those may be someone else's now; see `members[i].held`).
   */
  readonly held: boolean;
  /**
   * Releases every member still held, last acquired first, attempting all even when some fail.
   * When some fail (the server refused a delete: `NO_AUTH`...) the others are released and those
   * stay held; the multi-lock is then no longer held as a whole (`held` false, `signal` aborted
   * with the error): call `release()` again once the cause is fixed to give back the rest.
   * @throws MultiReleaseError (`MULTI_RELEASE_FAILED`, failures in `errors`, the members'
   * directories in `released` and `stillHeld`) if any member failed; NotOwnerError (`NOT_OWNER`)
   * if this handle was already released (or is being released).
   */
  release(): Promise<void>;
}
