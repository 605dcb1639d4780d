import { onAbort } from './abortFanOut.js';
import { AbortedError, LockTimeoutError, SessionLostError } from '../errors.js';

/**
 * One AbortSignal for one acquisition: it fires on the caller's signal (`ABORTED`), at the
 * deadline (`LOCK_TIMEOUT`) or when the ZooKeeper session is lost (`SESSION_LOST`), and its
 * `reason` is already the typed error to throw.
 */
export class StopSignal {
  private readonly controller = new AbortController();
  private readonly cleanups: Array<() => void> = [];

  /** Until the first decision, a deadline that passes while connected waits for it (see constructor). */
  private firstLookPending = true;
  private timeoutDeferred: LockTimeoutError | undefined;

  /**
   * @param isConnected tells whether the session is connected now. A deadline that passes before
   *   the first decision while connected is deferred to that decision, so even `timeoutMs: 0` gets
   *   one look at the queue (one round trip) — Curator's semantics. While disconnected it fires at once.
   */
  constructor(options: {
    signal?: AbortSignal | undefined;
    timeoutMs?: number | undefined;
    sessionSignal: AbortSignal;
    isConnected?: () => boolean;
    what: string;
  }) {
    const { signal, timeoutMs, sessionSignal, what, isConnected = () => false } = options;
    this.follow(sessionSignal, () => new SessionLostError(`${what}: the ZooKeeper session was lost`, { cause: sessionSignal.reason }));
    if (signal !== undefined) {
      this.follow(signal, () => new AbortedError(`${what}: aborted`, { cause: signal.reason }));
    }
    if (timeoutMs !== undefined && !this.signal.aborted) {
      const timer = setTimeout(() => {
        const timeout = new LockTimeoutError(`${what}: not acquired within ${timeoutMs} ms`);
        if (this.firstLookPending && isConnected()) this.timeoutDeferred = timeout;
        else this.stop(timeout);
      }, timeoutMs);
      this.cleanups.push(() => clearTimeout(timer));
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The first decision is made: a deferred deadline fires now. */
  firstLookDone(): void {
    this.firstLookPending = false;
    if (this.timeoutDeferred !== undefined) this.stop(this.timeoutDeferred);
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
    this.cleanups.push(onAbort(source, () => this.stop(reason())));
  }

  private stop(reason: Error): void {
    if (!this.signal.aborted) this.controller.abort(reason);
    this.dispose();
  }
}
