import { onAbort } from './abortFanOut.js';

/** Told once when a {@link Stoppable} stops. An object, not a closure: waiters keep no extra function. */
export interface StopListener {
  stopped(): void;
}

/**
 * What the engine's waits need to know about stopping: whether and why, and a call when it
 * happens. An AbortSignal provides this too, but at the price of an EventTarget per waiter;
 * {@link StopSignal} provides it with a listener set.
 */
export interface Stoppable {
  readonly aborted: boolean;
  readonly reason: unknown;
  /** Calls `listener.stopped()` once when stopped (at once if already stopped). */
  addStopListener(listener: StopListener): void;
  removeStopListener(listener: StopListener): void;
}

/** An AbortSignal seen as a {@link Stoppable} (for public helpers that take a signal). */
export function stoppableOf(signal: AbortSignal): Stoppable {
  const unsubscribers = new Map<StopListener, () => void>();
  return {
    get aborted() {
      return signal.aborted;
    },
    get reason(): unknown {
      return signal.reason;
    },
    addStopListener(listener) {
      const unsubscribe = onAbort(signal, () => {
        unsubscribers.delete(listener);
        listener.stopped();
      });
      if (!signal.aborted) unsubscribers.set(listener, unsubscribe);
    },
    removeStopListener(listener) {
      unsubscribers.get(listener)?.();
      unsubscribers.delete(listener);
    },
  };
}
