import type { StopListener } from './stoppable.js';

/**
 * One real 'abort' listener per signal, fanned out to any number of listeners. Ten thousand
 * waiters on one session would otherwise each add a listener to the session's signal, and
 * EventTarget's add/remove are linear in the number of listeners: quadratic overall.
 */
const subscribers = new WeakMap<AbortSignal, { listeners: Set<StopListener>; onAbort: () => void }>();

/** Calls `listener.stopped()` once when `signal` aborts — at once if it already has. */
export function followAbort(signal: AbortSignal, listener: StopListener): void {
  if (signal.aborted) {
    listener.stopped();
    return;
  }
  let entry = subscribers.get(signal);
  if (entry === undefined) {
    const listeners = new Set<StopListener>();
    const onAbort = (): void => {
      subscribers.delete(signal);
      for (const each of [...listeners]) each.stopped();
    };
    entry = { listeners, onAbort };
    subscribers.set(signal, entry);
    signal.addEventListener('abort', onAbort, { once: true });
  }
  entry.listeners.add(listener);
}

/**
 * Stops following: `listener` will not be called for `signal`. The last one out removes the real
 * listener: Node keeps a combined signal (`AbortSignal.any`) or a timeout signal alive while it
 * has 'abort' listeners, so a caller's per-acquisition signal would otherwise stay for ever.
 */
export function unfollowAbort(signal: AbortSignal, listener: StopListener): void {
  const entry = subscribers.get(signal);
  if (entry === undefined) return;
  entry.listeners.delete(listener);
  if (entry.listeners.size > 0) return;
  subscribers.delete(signal);
  signal.removeEventListener('abort', entry.onAbort);
}

/**
 * Calls `callback` once when `signal` aborts — at once if it already has — and returns the
 * unsubscribe function.
 */
export function onAbort(signal: AbortSignal, callback: () => void): () => void {
  const listener: StopListener = { stopped: callback };
  followAbort(signal, listener);
  return () => unfollowAbort(signal, listener);
}
