/**
 * One real 'abort' listener per signal, fanned out to any number of callbacks. Ten thousand
 * waiters on one session would otherwise each add a listener to the session's signal, and
 * EventTarget's add/remove are linear in the number of listeners: quadratic overall.
 */
const subscribers = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `callback` once when `signal` aborts — at once if it already has — and returns the
 * unsubscribe function.
 */
export function onAbort(signal: AbortSignal, callback: () => void): () => void {
  if (signal.aborted) {
    callback();
    return () => undefined;
  }
  let callbacks = subscribers.get(signal);
  if (callbacks === undefined) {
    const set = new Set<() => void>();
    callbacks = set;
    subscribers.set(signal, set);
    signal.addEventListener(
      'abort',
      () => {
        subscribers.delete(signal);
        for (const cb of [...set]) cb();
      },
      { once: true },
    );
  }
  callbacks.add(callback);
  const registered = callbacks;
  return () => registered.delete(callback);
}
