import type { ZkSession } from '../session/ZkSession.js';

/** What a held lock tells its own listeners of its session's connection. */
export interface ConnectionNewsListener {
  /** The connection dropped (the session's `suspended`). */
  suspended(): void;
  /** The same session is back (the session's `reconnected`). */
  reconnected(): void;
  /** The session is lost (the session's `lost`). */
  lost(reason: Error): void;
}

/**
 * Relays the session's `suspended`, `reconnected` and `lost` events to the locks of this session
 * held in this process (a slot of the session's scope: one relay per session). Each session event
 * has one listener, here, for the life of the session: a lock joins at its first holding and
 * leaves at its last release, a set insert and delete, where three listeners of its own added and
 * removed on every holding cost a measurable share of an uncontended acquire and release.
 */
export class HeldLocksRelay {
  private readonly held = new Set<ConnectionNewsListener>();

  constructor(session: ZkSession) {
    // Over a copy: a lock told may release (and leave the set) or another may be granted meanwhile.
    session.on('suspended', () => {
      for (const lock of [...this.held]) lock.suspended();
    });
    session.on('reconnected', () => {
      for (const lock of [...this.held]) lock.reconnected();
    });
    session.on('lost', (reason) => {
      for (const lock of [...this.held]) lock.lost(reason);
    });
  }

  /** `lock` holds something now: it hears the session's news until {@link leave}. */
  join(lock: ConnectionNewsListener): void {
    this.held.add(lock);
  }

  /** `lock` holds nothing any more. */
  leave(lock: ConnectionNewsListener): void {
    this.held.delete(lock);
  }

  /** How many locks hear the news (for tests). */
  get size(): number {
    return this.held.size;
  }
}

/** The session's relay (a {@link ZkSession.scope} key). */
export const heldLocksRelayOf = (session: ZkSession): HeldLocksRelay => new HeldLocksRelay(session);
