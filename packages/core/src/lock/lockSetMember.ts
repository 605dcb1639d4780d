import type { ConnectionNewsListener } from './heldLocksRelay.js';

/**
 * What a lock that belongs to a lock set (one lock per key, `QueueLockSet`) tells its set, in
 * place of joining the session's relay itself: the set hears the session's news once for all its
 * keys, and keeps a key's lock only while it is needed (docs/mutex.md, "Locks per key").
 */
export interface LockSetMember {
  /** The lock holds something now (its first holding began): the set relays news for it. */
  join(lock: ConnectionNewsListener): void;
  /** The lock holds nothing any more (its last holding ended). */
  leave(lock: ConnectionNewsListener): void;
  /**
   * The lock holds nothing and no acquisition of it is in flight in this process: the set may
   * drop it, and a new acquisition of the key may use a new lock object.
   */
  idle(): void;
  /** Someone else deleted the node of one of its holdings (`NODE_DELETED`). */
  nodeDeleted(reason: Error): void;
}
