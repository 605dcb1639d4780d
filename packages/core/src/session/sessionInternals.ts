/**
 * What tests (and `@zk-recipes/testing`'s fault tools) may see of a session beyond its public API:
 * the current generation's credentials, counts and liveness clock. Not public API: exported only
 * through `@zk-recipes/core/internal` (docs/packaging.md), never from the package root.
 */
import type { Generation } from './generation.js';
import { lostMarginMs } from './livenessWatchdog.js';
import type { ZkSession } from './ZkSession.js';

export interface SessionInternals {
  /** The raw credentials of the current ZooKeeper session (to attach to it and expire it). */
  readonly credentials: { sessionId: Buffer; password: Buffer };
  /** Counts of outstanding calls and watches of the current generation. */
  readonly diagnostics: { pendingCalls: number; watchKeys: number; watchers: number };
  /** The liveness clock of the current generation (performance.now() times). */
  readonly livenessClock: { lastAnsweredSentAt: number; lostDeadline: number; marginMs: number };
}

/** A view of `session`'s internals; each read looks at its generation then current. */
export function sessionInternals(session: ZkSession): SessionInternals {
  // The generations are private to ZkSession so that they stay out of the public type; this module,
  // which is not public either, is the one reader TypeScript's element access lets through.
  const current = (): Generation => session['generations'].current;
  return {
    get credentials() {
      const { client } = current();
      return { sessionId: client.getSessionId(), password: client.getSessionPassword() };
    },
    get diagnostics() {
      const gen = current();
      return { pendingCalls: gen.pending.size, watchKeys: gen.watches.keys, watchers: gen.watches.watchers };
    },
    get livenessClock() {
      const gen = current();
      return { lastAnsweredSentAt: gen.clock.lastAnsweredSentAt, lostDeadline: gen.clock.deadline, marginMs: lostMarginMs(gen.cm.sessionTimeout) };
    },
  };
}
