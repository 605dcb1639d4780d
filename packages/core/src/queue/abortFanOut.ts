import type { StopListener } from './stoppable.js';

/**
 * One real 'abort' listener per signal, fanned out to any number of listeners. Ten thousand
 * waiters on one session would otherwise each add a listener to the session's signal, and
 * EventTarget's add/remove are linear in the number of listeners: quadratic overall.
 */
const subscribers = new WeakMap<AbortSignal, Set<StopListener>>();

/** Calls `listener.stopped()` once when `signal` aborts — at once if it already has. */
export function followAbort(signal: AbortSignal, listener: StopListener): void {
  if (signal.aborted) {
    listener.stopped();
    return;
  }
  let listeners = subscribers.get(signal);
  if (listeners === undefined) {
    const set = new Set<StopListener>();
    listeners = set;
    subscribers.set(signal, set);
    signal.addEventListener(
      'abort',
      () => {
        subscribers.delete(signal);
        for (const each of [...set]) each.stopped();
      },
      { once: true },
    );
  }
  listeners.add(listener);
}

/** Stops following: `listener` will not be called for `signal`. */
export function unfollowAbort(signal: AbortSignal, listener: StopListener): void {
  subscribers.get(signal)?.delete(listener);
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
