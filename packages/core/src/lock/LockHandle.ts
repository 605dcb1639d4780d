/**
 * Proof of holding a lock, returned by every `acquire()`. Release it exactly once: with
 * `release()`, or by `await using` (`Symbol.asyncDispose` releases it unless `release()` was
 * called; a release the server refuses rejects with ReleaseFailedError, `RELEASE_FAILED`, carrying
 * this handle).
 */
export interface LockHandle extends AsyncDisposable {
  /** Full path of the ZooKeeper node that holds the lock for us. */
  readonly path: string;
  /**
   * The node's `czxid`: strictly increasing across successive holders of one lock path (even if
   * the lock directory is deleted and recreated). Pass it to the guarded resource so it can reject
   * a stale holder's writes.
   */
  readonly fencingToken: bigint;
  /**
   * When the lock was granted, on this process's `performance.now()` clock: the reading with which
   * the engine last checked that the ZooKeeper session could not have expired. Compare it with
   * `performance.now()` for how long you have held the lock; a process stopped after this moment
   * (GC, SIGSTOP) held it while stopped. A re-entry's handle shares its holding's moment.
   */
  readonly grantedAt: number;
  /**
   * Aborts when the lock is no longer ours through this handle: the ZooKeeper session ended or may
   * have (`SESSION_LOST`; `SESSION_CLOSED` after `session.close()`), someone else deleted our node
   * (`NODE_DELETED`), or `release()` was called on this handle (`RELEASED`, from the call on, while
   * the delete is still on its way). Reading it first checks what `held` checks, so a process that
   * wakes from a stop past its session sees it aborted on its first read, before any timer has run.
   * Stop the guarded work when it fires; check it (or `held`) before each step.
   */
  readonly signal: AbortSignal;
  /**
   * Still ours, checked now: `release()` not called on this handle, the signal not aborted, our
   * node not known deleted, and the session unable to have expired yet by this process's clock
   * (a loss found here is declared at once: every handle of the session sees it). False does not
   * mean released: call `release()` once for every acquisition (`await using` does), a lost one too.
   * Only a fencing token protects work already past its check when the process stopped.
   */
  readonly held: boolean;
  /**
   * Releases this acquisition: from the call on this handle is not held and its `signal` is
   * aborted (`RELEASED`); resolves once the node is deleted. For a re-entrant lock the node is
   * deleted when the outermost acquisition is released. Throws `NOT_OWNER` when this handle was
   * already released (or is being released); does not throw when ownership was lost meanwhile.
   * When the server refuses the delete (`NO_AUTH`: an ACL without DELETE for us, or another answer
   * that is not a lost connection) it rejects with ReleaseFailedError (`RELEASE_FAILED`, the
   * refusal as `error`): the node is still ours, and `release()` on this handle (`err.handle`)
   * tries again once the cause is fixed; or close the session (docs/errors.md, "Releasing").
   */
  release(): Promise<void>;
}
