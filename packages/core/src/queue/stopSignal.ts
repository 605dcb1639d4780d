import { followAbort, unfollowAbort } from './abortFanOut.js';
import { AbortedError, LockTimeoutError, SessionClosedError, SessionLostError } from '../errors.js';
import type { StopListener, Stoppable } from './stoppable.js';
import { SmallSet } from '../util/SmallSet.js';

/** What a {@link StopSignal} watches. */
export interface StopSignalOptions {
  /** The caller's signal: `ABORTED`. */
  signal?: AbortSignal | undefined;
  /** The deadline: `LOCK_TIMEOUT`. */
  timeoutMs?: number | undefined;
  /** The ZooKeeper session's signal: `SESSION_LOST`, or `SESSION_CLOSED` after `close()`. */
  sessionSignal: AbortSignal;
  /**
   * Tells whether the session is connected now. A deadline that passes before the first decision
   * while connected is deferred to that decision, so even `timeoutMs: 0` gets one look at the
   * queue (one round trip) — Curator's semantics. While disconnected it fires at once.
   */
  isConnected?: () => boolean;
  /** Names the acquisition in error messages, e.g. `lock /locks/a`. */
  what: string;
}

/**
 * When one acquisition must stop: on the caller's signal (`ABORTED`), at the deadline
 * (`LOCK_TIMEOUT`) or when the ZooKeeper session is lost (`SESSION_LOST`) or closed (`SESSION_CLOSED`). `reason` is already the
 * typed error to throw.
 *
 * It is a plain listener set, not an AbortController, and it follows the session's and the
 * caller's signals as a listener object, not through closures: ten thousand queued waiters each
 * holding an EventTarget (with its listener records and maps) and a few closures cost about 1 KB
 * apiece. An AbortSignal view is made only for the rare paths that need one (waiting for a
 * reconnect, a child watch).
 */
export class StopSignal implements Stoppable, StopListener {
  private stopReason: Error | undefined;
  private listeners: SmallSet<StopListener> | undefined;
  private controller: AbortController | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly sessionSignal: AbortSignal;
  private readonly callerSignal: AbortSignal | undefined;
  private readonly what: string;

  /** Until the first decision, a deadline that passes while connected waits for it. */
  private firstLookPending = true;
  private timeoutDeferred: LockTimeoutError | undefined;

  constructor(options: StopSignalOptions) {
    const { signal, timeoutMs, sessionSignal, what, isConnected } = options;
    this.sessionSignal = sessionSignal;
    this.callerSignal = signal;
    this.what = what;
    followAbort(sessionSignal, this);
    if (signal !== undefined && !this.aborted) followAbort(signal, this);
    if (timeoutMs !== undefined && !this.aborted) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        const timeout = new LockTimeoutError(`${what}: not acquired within ${timeoutMs} ms`);
        if (this.firstLookPending && isConnected?.() === true) this.timeoutDeferred = timeout;
        else this.stop(timeout);
      }, timeoutMs);
    }
  }

  get aborted(): boolean {
    return this.stopReason !== undefined;
  }

  /** The typed error to throw once stopped; undefined before. */
  get reason(): Error | undefined {
    return this.stopReason;
  }

  /** An AbortSignal that fires with this stop, made on first use. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.stopReason !== undefined) this.controller.abort(this.stopReason);
    }
    return this.controller.signal;
  }

  addStopListener(listener: StopListener): void {
    if (this.stopReason !== undefined) listener.stopped();
    else (this.listeners ??= new SmallSet()).add(listener);
  }

  removeStopListener(listener: StopListener): void {
    this.listeners?.delete(listener);
  }

  /** @internal The session's or the caller's signal fired. */
  stopped(): void {
    if (this.sessionSignal.aborted) {
      const cause: unknown = this.sessionSignal.reason;
      this.stop(
        cause instanceof SessionClosedError
          ? new SessionClosedError(`${this.what}: the ZkSession was closed`, { cause })
          : new SessionLostError(`${this.what}: the ZooKeeper session was lost`, { cause }),
      );
    } else if (this.callerSignal?.aborted === true) {
      this.stop(new AbortedError(`${this.what}: aborted`, { cause: this.callerSignal.reason }));
    }
  }

  /** The first decision is made: a deferred deadline fires now. */
  firstLookDone(): void {
    this.firstLookPending = false;
    if (this.timeoutDeferred !== undefined) this.stop(this.timeoutDeferred);
  }

  /** Throws the stop reason if stopped. */
  throwIfStopped(): void {
    if (this.stopReason !== undefined) throw this.stopReason;
  }

  /**
   * Resolves with `promise`, or rejects with the stop reason as soon as we stop. Takes charge of
   * `promise` on every path: its own rejection, if it comes second, is not reported as unhandled.
   */
  race<T>(promise: Promise<T>): Promise<T> {
    if (this.stopReason !== undefined) {
      // Often born rejected by the same stop (e.g. a wait on `this.signal`): handle it here.
      promise.catch(ignore);
      return Promise.reject(this.stopReason);
    }
    return new Promise<T>((resolve, reject) => {
      const listener: StopListener = { stopped: () => reject(this.stopReason) };
      this.addStopListener(listener);
      promise.then(
        (value) => {
          this.removeStopListener(listener);
          resolve(value);
        },
        (err: unknown) => {
          this.removeStopListener(listener);
          reject(err);
        },
      );
    });
  }

  /** Stops now with `reason` (e.g. our node was deleted by someone else); no-op once stopped. */
  abortWith(reason: Error): void {
    this.stop(reason);
  }

  /** Releases the timer and the subscriptions to the caller's and the session's signals. */
  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    unfollowAbort(this.sessionSignal, this);
    if (this.callerSignal !== undefined) unfollowAbort(this.callerSignal, this);
  }

  private stop(reason: Error): void {
    if (this.stopReason !== undefined) return;
    this.stopReason = reason;
    this.controller?.abort(reason);
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners !== undefined) for (const listener of listeners.toArray()) listener.stopped();
    this.dispose();
  }
}

function ignore(): void {}
