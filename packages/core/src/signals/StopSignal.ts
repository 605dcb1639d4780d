import { AbortedError, LockTimeoutError, SessionClosedError, SessionLostError } from '../errors.js';
import { SmallSet } from '../util/SmallSet.js';
import { markSettleBy, SETTLE_SLACK_MS } from './settleBound.js';

export { SETTLE_SLACK_MS } from './settleBound.js';

/** Told once when a stop fires. An object, not a closure: waiters keep no extra function. */
export interface StopListener {
  stopped(): void;
}

/**
 * One real 'abort' listener per followed signal, fanned out to any number of listeners. Ten
 * thousand waiters on one session would otherwise each add a listener to the session's signal, and
 * EventTarget's add/remove are linear in the number of listeners: quadratic overall. The engine
 * keeps one per session (docs/architecture.md, "The lock-queue engine"); nothing here is global.
 */
export class AbortFanOut {
  private readonly followed = new WeakMap<AbortSignal, { listeners: Set<StopListener>; onAbort: () => void; kept: boolean }>();

  /**
   * Calls `listener.stopped()` once when `signal` aborts — at once if it already has. `kept`: the
   * real listener stays when the last one unfollows, for a signal followed again and again that
   * lives as long as what it stands for (the session's: every acquisition follows it, and an
   * EventTarget's add and remove are the costliest steps of an uncontended one).
   */
  follow(signal: AbortSignal, listener: StopListener, kept = false): void {
    if (signal.aborted) {
      listener.stopped();
      return;
    }
    let entry = this.followed.get(signal);
    if (entry === undefined) {
      const listeners = new Set<StopListener>();
      const onAbort = (): void => {
        this.followed.delete(signal);
        for (const each of [...listeners]) each.stopped();
      };
      entry = { listeners, onAbort, kept };
      this.followed.set(signal, entry);
      signal.addEventListener('abort', onAbort, { once: true });
    } else if (kept) {
      entry.kept = true;
    }
    entry.listeners.add(listener);
  }

  /**
   * Stops following: `listener` will not be called for `signal`. The last one out removes the real
   * listener (unless it is `kept`): Node keeps a combined signal (`AbortSignal.any`) or a timeout
   * signal alive while it has 'abort' listeners, so a caller's per-acquisition signal would
   * otherwise stay for ever.
   */
  unfollow(signal: AbortSignal, listener: StopListener): void {
    const entry = this.followed.get(signal);
    if (entry === undefined) return;
    entry.listeners.delete(listener);
    if (entry.listeners.size > 0 || entry.kept) return;
    this.followed.delete(signal);
    signal.removeEventListener('abort', entry.onAbort);
  }

  /** Calls `callback` once when `signal` aborts — at once if it already has; returns the unsubscribe. */
  onAbort(signal: AbortSignal, callback: () => void): () => void {
    const listener: StopListener = { stopped: callback };
    this.follow(signal, listener);
    return () => this.unfollow(signal, listener);
  }
}

/** The session's fan-out (a slot of its scope, see `SessionScope`): every stop of one session shares it. */
export const abortFanOutOf = (_session: unknown): AbortFanOut => new AbortFanOut();

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
   * queue (one round trip) — Curator's semantics — but never by more than {@link SETTLE_SLACK_MS}:
   * a server that stalls, or answers later than that, gets no longer. While disconnected it fires
   * at once.
   */
  isConnected?: () => boolean;
  /** Names the acquisition in error messages, e.g. `lock /locks/a`. */
  what: string;
  /**
   * Follows the signals above, shared by every stop of one session (the engine's: one listener on
   * the session's signal for them all). Without it the stop follows them on its own, and leaves
   * none behind once disposed.
   */
  fanOut?: AbortFanOut | undefined;
}

/**
 * When one acquisition must stop (docs/architecture.md, "Stopping"): on the caller's signal
 * (`ABORTED`), at the deadline (`LOCK_TIMEOUT`), when the ZooKeeper session is lost
 * (`SESSION_LOST`) or closed (`SESSION_CLOSED`), or when the engine stops it (our node was
 * deleted). `reason` is already the typed error to throw. Every wait of the engine takes one.
 *
 * It is a plain listener set, not an AbortController, and it follows the session's and the
 * caller's signals as a listener object, not through closures: ten thousand queued waiters each
 * holding an EventTarget (with its listener records and maps) and a few closures cost about 1 KB
 * apiece. An AbortSignal view is made only for the rare paths that need one (waiting for a
 * reconnect, a child watch).
 */
export class StopSignal implements StopListener {
  private stopReason: unknown;
  private isStopped = false;
  private listeners: SmallSet<StopListener> | undefined;
  private controller: AbortController | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The first look's bound, judged once the replies already read are handled. */
  private afterPoll: ReturnType<typeof setImmediate> | undefined;
  private readonly sessionSignal: AbortSignal | undefined;
  private readonly callerSignal: AbortSignal | undefined;
  private readonly fanOut: AbortFanOut;
  private readonly what: string;

  /** Until the first decision, a deadline that passes while connected waits for it (at most the slack). */
  private firstLookPending = true;
  private timeoutDeferred: { timeout: LockTimeoutError; deadlineAt: number } | undefined;
  /** When the reason to stop arose (the deadline's timer, the abort): the slack counts from it. */
  private causedAt = 0;

  /**
   * A stop that follows `signal` alone and stops with that signal's own reason (for the public
   * helpers that take an AbortSignal, e.g. `waitUntilGone`).
   */
  static following(signal: AbortSignal, fanOut?: AbortFanOut): StopSignal {
    return new StopSignal({ signal, what: '', fanOut }, true);
  }

  constructor(options: StopSignalOptions);
  /** @internal */
  constructor(options: Omit<StopSignalOptions, 'sessionSignal'> & { sessionSignal?: AbortSignal }, plain: true);
  constructor(
    options: Omit<StopSignalOptions, 'sessionSignal'> & { sessionSignal?: AbortSignal | undefined },
    /** Stop with the caller's signal's own reason, not an `AbortedError`. */
    private readonly plain = false,
  ) {
    const { signal, timeoutMs, sessionSignal, what, isConnected } = options;
    this.sessionSignal = sessionSignal;
    this.callerSignal = signal;
    this.what = what;
    const sharedFanOut = options.fanOut !== undefined;
    this.fanOut = options.fanOut ?? new AbortFanOut();
    // The session's signal lives as long as its ZooKeeper session: the session's shared fan-out
    // keeps its real listener for the next stop. A fan-out of this stop's own removes it on
    // dispose, or every such stop would leave one on the session's signal for good.
    if (sessionSignal !== undefined) this.fanOut.follow(sessionSignal, this, sharedFanOut);
    if (signal !== undefined && !this.aborted) this.fanOut.follow(signal, this);
    if (timeoutMs !== undefined && !this.aborted) {
      // The slack counts from the deadline itself, not from a timer that a busy loop made late.
      const deadlineAt = performance.now() + timeoutMs;
      this.timer = setTimeout(() => {
        const timeout = new LockTimeoutError(`${what}: not acquired within ${timeoutMs} ms`);
        if (this.firstLookPending && isConnected?.() === true) {
          // One look at the queue, but no longer than the slack: a stalled server gets no more.
          this.timeoutDeferred = { timeout, deadlineAt };
          this.timer = setTimeout(() => {
            this.timer = undefined;
            // Timers run before I/O in the event loop: the answer that makes the first decision
            // may be sitting unread. Judge after the poll phase, so that it counts if it came in time.
            this.afterPoll = setImmediate(() => this.stop(timeout, deadlineAt));
          }, Math.max(0, deadlineAt + SETTLE_SLACK_MS - performance.now()));
        } else {
          this.timer = undefined;
          this.stop(timeout, deadlineAt);
        }
      }, timeoutMs);
    }
  }

  /** True once stopped (deadline, caller's signal, session lost or closed, our node deleted). */
  get aborted(): boolean {
    return this.isStopped;
  }

  /** The typed error to throw once stopped; undefined before. */
  get reason(): Error | undefined {
    return this.stopReason as Error | undefined;
  }

  /** An AbortSignal that fires with this stop, made on first use. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.isStopped) this.controller.abort(this.stopReason);
    }
    return this.controller.signal;
  }

  /** Calls `listener.stopped()` once when stopped (at once if already stopped). */
  addStopListener(listener: StopListener): void {
    if (this.isStopped) listener.stopped();
    else (this.listeners ??= new SmallSet()).add(listener);
  }

  /** Forgets a listener added with `addStopListener`. */
  removeStopListener(listener: StopListener): void {
    this.listeners?.delete(listener);
  }

  /** @internal The session's or the caller's signal fired. */
  stopped(): void {
    if (this.sessionSignal?.aborted === true) {
      const cause: unknown = this.sessionSignal.reason;
      this.stop(
        cause instanceof SessionClosedError
          ? new SessionClosedError(`${this.what}: the ZkSession was closed`, { cause })
          : new SessionLostError(`${this.what}: the ZooKeeper session was lost`, { cause }),
      );
    } else if (this.callerSignal?.aborted === true) {
      this.stop(this.plain ? this.callerSignal.reason : new AbortedError(`${this.what}: aborted`, { cause: this.callerSignal.reason }));
    }
  }

  /**
   * The first decision is made, and it is to wait: a deferred deadline fires now. (One that grants
   * is made before this is called: the first look's answer wins, within the slack.)
   */
  firstLookDone(): void {
    this.firstLookPending = false;
    const deferred = this.timeoutDeferred;
    if (deferred !== undefined) this.stop(deferred.timeout, deferred.deadlineAt);
  }

  /**
   * Resolves once `work` has settled, or at the latest {@link SETTLE_SLACK_MS} after the reason to
   * stop arose (at once if that is past), whichever comes first; never rejects. What a failed
   * acquisition waits for before it rejects (the delete of its node): with a server that answers,
   * all of it; with one that stalls, no longer than the slack, and the work goes on in the
   * background.
   */
  settleWithin(work: Promise<unknown>): Promise<void> {
    return new Promise<void>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const bounded: StopListener = {
        stopped: () => {
          timer = setTimeout(done, Math.max(0, this.causedAt + SETTLE_SLACK_MS - performance.now()));
        },
      };
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      work.then(
        () => {
          this.removeStopListener(bounded);
          done();
        },
        () => {
          this.removeStopListener(bounded);
          done();
        },
      );
      this.addStopListener(bounded);
    });
  }

  /** Throws the stop reason if stopped. */
  throwIfStopped(): void {
    if (this.isStopped) throw this.stopReason;
  }

  /**
   * Resolves with `promise`, or rejects with the stop reason as soon as we stop. Takes charge of
   * `promise` on every path: its own rejection, if it comes second, is not reported as unhandled.
   */
  race<T>(promise: Promise<T>): Promise<T> {
    if (this.isStopped) {
      // Often born rejected by the same stop (e.g. a wait on `this.signal`): handle it here.
      promise.catch(ignore);
      return Promise.reject(this.stopReason);
    }
    return new Promise<T>((resolve, reject) => {
      const racer = new Racer(this, reject);
      this.addStopListener(racer);
      promise.then(
        (value) => {
          this.removeStopListener(racer);
          resolve(value);
        },
        (err: unknown) => {
          this.removeStopListener(racer);
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
    if (this.afterPoll !== undefined) clearImmediate(this.afterPoll);
    this.afterPoll = undefined;
    if (this.sessionSignal !== undefined) this.fanOut.unfollow(this.sessionSignal, this);
    if (this.callerSignal !== undefined) this.fanOut.unfollow(this.callerSignal, this);
  }

  private stop(reason: unknown, causedAt = performance.now()): void {
    if (this.isStopped) return;
    this.isStopped = true;
    this.stopReason = reason;
    this.causedAt = causedAt;
    markSettleBy(reason, causedAt);
    this.controller?.abort(reason);
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners !== undefined) for (const listener of listeners.toArray()) listener.stopped();
    this.dispose();
  }
}

function ignore(): void {}

/** What {@link StopSignal.race} listens with: rejects the race with the stop's reason. */
class Racer implements StopListener {
  constructor(
    private readonly stop: StopSignal,
    private readonly reject: (reason: unknown) => void,
  ) {}

  stopped(): void {
    this.reject(this.stop.reason);
  }
}
