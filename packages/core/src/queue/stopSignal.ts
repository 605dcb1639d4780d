import { setMaxListeners } from 'node:events';
import { AbortedError, LockTimeoutError, SessionLostError } from '../errors.js';

/**
 * One AbortSignal for one acquisition: it fires on the caller's signal (`ABORTED`), at the
 * deadline (`LOCK_TIMEOUT`) or when the ZooKeeper session is lost (`SESSION_LOST`), and its
 * `reason` is already the typed error to throw.
 */
export class StopSignal {
  private readonly controller = new AbortController();
  private readonly cleanups: Array<() => void> = [];

  constructor(options: { signal?: AbortSignal | undefined; timeoutMs?: number | undefined; sessionSignal: AbortSignal; what: string }) {
    const { signal, timeoutMs, sessionSignal, what } = options;
    // Thousands of waiters may listen to one session signal: that is expected, not a leak.
    setMaxListeners(0, sessionSignal);
    this.follow(sessionSignal, () => new SessionLostError(`${what}: the ZooKeeper session was lost`, { cause: sessionSignal.reason }));
    if (signal !== undefined) {
      this.follow(signal, () => new AbortedError(`${what}: aborted`, { cause: signal.reason }));
    }
    if (timeoutMs !== undefined && !this.signal.aborted) {
      const timer = setTimeout(() => this.stop(new LockTimeoutError(`${what}: not acquired within ${timeoutMs} ms`)), timeoutMs);
      this.cleanups.push(() => clearTimeout(timer));
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Throws the stop reason if stopped. */
  throwIfStopped(): void {
    if (this.signal.aborted) throw this.signal.reason;
  }

  /** Resolves with `promise`, or rejects with the stop reason as soon as the signal fires. */
  race<T>(promise: Promise<T>): Promise<T> {
    if (this.signal.aborted) return Promise.reject(this.signal.reason);
    return new Promise<T>((resolve, reject) => {
      const onStop = () => reject(this.signal.reason);
      this.signal.addEventListener('abort', onStop, { once: true });
      promise.then(
        (value) => {
          this.signal.removeEventListener('abort', onStop);
          resolve(value);
        },
        (err: unknown) => {
          this.signal.removeEventListener('abort', onStop);
          reject(err);
        },
      );
    });
  }

  /** Releases timers and listeners. */
  dispose(): void {
    for (const cleanup of this.cleanups.splice(0)) cleanup();
  }

  private follow(source: AbortSignal, reason: () => Error): void {
    if (source.aborted) {
      this.stop(reason());
      return;
    }
    const onAbort = () => this.stop(reason());
    source.addEventListener('abort', onAbort, { once: true });
    this.cleanups.push(() => source.removeEventListener('abort', onAbort));
  }

  private stop(reason: Error): void {
    if (!this.signal.aborted) this.controller.abort(reason);
    this.dispose();
  }
}
