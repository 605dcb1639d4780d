/**
 * Proof of holding a lock, returned by every `acquire()`. Release it exactly once: with
 * `release()`, or by `await using` (`Symbol.asyncDispose` releases it if still held; a release the
 * server refuses then rejects with ReleaseFailedError, `RELEASE_FAILED`, carrying this handle).
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
   * Aborted when ownership is lost: the ZooKeeper session ended, so the node and the lock are
   * gone (or going). Stop the guarded work when it fires.
   */
  readonly signal: AbortSignal;
  /** True until this handle is released (still true after a release the server refused). */
  readonly held: boolean;
  /**
   * Releases this acquisition. For a re-entrant lock the node is deleted when the outermost
   * acquisition is released. Throws `NOT_OWNER` when this handle was already released (or is being
   * released); does not throw when ownership was lost meanwhile. When the server refuses the delete
   * (`NO_AUTH`: an ACL without DELETE for us, or another answer that is not a lost connection) it
   * rejects with that error and the handle stays held, its node still there: release again once the
   * cause is fixed, or close the session (docs/errors.md, "Releasing").
   */
  release(): Promise<void>;
}
