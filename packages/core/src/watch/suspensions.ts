import type { ZkSession } from '../session/ZkSession.js';

/**
 * Waits told when their session's connection is lost (`suspended`), through one session listener
 * per session: a process may have thousands of waits, and an emitter's listener list costs O(n)
 * to remove from.
 */
const bySession = new WeakMap<ZkSession, Set<() => void>>();

/** Calls `listener` at the session's next `suspended` until the returned function is called. */
export function onSuspended(session: ZkSession, listener: () => void): () => void {
  let listeners = bySession.get(session);
  if (listeners === undefined) {
    const set = new Set<() => void>();
    listeners = set;
    bySession.set(session, set);
    session.on('suspended', () => {
      for (const notify of [...set]) notify();
    });
  }
  const set = listeners;
  set.add(listener);
  return () => set.delete(listener);
}
