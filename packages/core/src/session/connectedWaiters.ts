/** The callers of `ZkSession.waitForConnected`, told of every state change. */
import { SessionClosedError } from '../errors.js';
import type { ConnectionState } from './types.js';

/** Whether requests can be answered in `state`. */
export function isConnectedState(state: ConnectionState): boolean {
  return state === 'connected' || state === 'reconnected';
}

/** One caller waiting. */
interface Waiter {
  resolve(): void;
  reject(reason: Error): void;
  signal: AbortSignal | undefined;
}

/** The waiters that gave one signal, followed through one `abort` listener. */
interface SignalGroup {
  waiters: Set<Waiter>;
  onAbort(): void;
}

export class ConnectedWaiters {
  private readonly waiting = new Set<Waiter>();
  /**
   * Waiters by the signal they gave. Thousands of them often give the same one (the session's
   * signal: every clean-up of a connection blip waits for the reconnection with it), and an
   * `AbortSignal` adds a listener in time linear in those it has: one listener per signal keeps a
   * burst of them linear, not quadratic.
   */
  private readonly bySignal = new Map<AbortSignal, SignalGroup>();

  /**
   * Resolves at once in a connected state, otherwise at the next one; rejects when the session is
   * (or gets) closed, or when `signal` aborts (with its reason).
   */
  wait(state: ConnectionState, signal?: AbortSignal): Promise<void> {
    if (isConnectedState(state)) return Promise.resolve();
    if (state === 'closed') return Promise.reject(closed());
    if (signal?.aborted === true) return Promise.reject(abortReason(signal));
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal };
      this.waiting.add(waiter);
      if (signal !== undefined) this.follow(signal, waiter);
    });
  }

  /** The session's state is now `state`. */
  stateChanged(state: ConnectionState): void {
    if (!isConnectedState(state) && state !== 'closed') return;
    const waiters = [...this.waiting];
    this.waiting.clear();
    for (const [signal, group] of this.bySignal) signal.removeEventListener('abort', group.onAbort);
    this.bySignal.clear();
    for (const waiter of waiters) {
      if (state === 'closed') waiter.reject(closed());
      else waiter.resolve();
    }
  }

  private follow(signal: AbortSignal, waiter: Waiter): void {
    let group = this.bySignal.get(signal);
    if (group === undefined) {
      const waiters = new Set<Waiter>();
      const onAbort = (): void => {
        this.bySignal.delete(signal);
        for (const each of waiters) {
          this.waiting.delete(each);
          each.reject(abortReason(signal));
        }
      };
      group = { waiters, onAbort };
      this.bySignal.set(signal, group);
      signal.addEventListener('abort', onAbort, { once: true });
    }
    group.waiters.add(waiter);
  }
}

function closed(): SessionClosedError {
  return new SessionClosedError('ZkSession is closed', { op: 'waitForConnected' });
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted', { cause: signal.reason });
}
