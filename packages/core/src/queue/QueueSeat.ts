/** Our node in a lock queue, held or still waiting. */
export interface QueueNode {
  /** Full path of our node, e.g. `/locks/orders/_c_<uuid>-lock-0000000007`. */
  readonly path: string;
  /** The node's name (last path segment). */
  readonly name: string;
  /**
   * Fencing token: the node's `czxid`. It strictly increases across successive holders of one
   * path, even if the lock directory is deleted and recreated, so a resource guarded by the lock
   * can reject writes carrying an older token.
   */
  readonly fencingToken: bigint;
  /** The ZkSession generation (ZooKeeper session) that owns the node. */
  readonly generation: number;
  /** Aborted when that ZooKeeper session is lost: the node (and the lock) is gone then. */
  readonly signal: AbortSignal;
  /**
   * Set when an earlier create of this acquisition lost its reply and was not found afterwards:
   * the server may still apply it (a request the old server had not passed on yet), leaving a
   * node with this GUID that nobody knows. Leaving the queue sweeps the directory for it.
   */
  readonly ghostGuid?: string | undefined;
}

/**
 * Our node in a lock queue once the ordering rule says we hold the lock: what a recipe needs to
 * build its handle. Obtained from {@link LockQueue.enter}; given back with {@link LockQueue.leave}.
 */
export interface QueueSeat extends QueueNode {
  /**
   * The grant's moment on this process's `performance.now()` clock: the clock reading with which
   * the engine last checked that the session could not have expired yet. Every hold of this seat
   * began after it; a process stopped after it (GC, SIGSTOP) held the lock while stopped.
   */
  readonly grantedAt: number;
}
