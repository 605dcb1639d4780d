/** The callers of `ZkSession.waitForConnected`, told of every state change. */
import { SessionClosedError } from '../errors.js';
import type { ConnectionState } from './types.js';

/** Whether requests can be answered in `state`. */
export function isConnectedState(state: ConnectionState): boolean {
  return state === 'connected' || state === 'reconnected';
}

export class ConnectedWaiters {
  private readonly waiting = new Set<(state: ConnectionState) => void>();

  /**
   * Resolves at once in a connected state, otherwise at the next one; rejects when the session is
   * (or gets) closed, or when `signal` aborts (with its reason).
   */
  wait(state: ConnectionState, signal?: AbortSignal): Promise<void> {
    if (isConnectedState(state)) return Promise.resolve();
    const closed = (): SessionClosedError => new SessionClosedError('ZkSession is closed', { op: 'waitForConnected' });
    if (state === 'closed') return Promise.reject(closed());
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        this.waiting.delete(check);
        reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted', { cause: signal?.reason }));
      };
      const check = (now: ConnectionState): void => {
        if (!isConnectedState(now) && now !== 'closed') return;
        this.waiting.delete(check);
        signal?.removeEventListener('abort', onAbort);
        if (now === 'closed') reject(closed());
        else resolve();
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.add(check);
    });
  }

  /** The session's state is now `state`. */
  stateChanged(state: ConnectionState): void {
    for (const check of [...this.waiting]) check(state);
  }
}
