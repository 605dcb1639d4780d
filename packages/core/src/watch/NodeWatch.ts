import { abortFanOutOf, StopSignal, type StopListener } from '../signals/StopSignal.js';
import type { ZkSession } from '../session/ZkSession.js';
import type { Stat, Watcher, WatchEvent } from '../session/types.js';

/*
 * The node waits (docs/architecture.md, "Watches"): one node's deletion or data change
 * ({@link NodeWatch}), or its creation ({@link CreationWatch}). Each reports to an object, not
 * through a promise: one object and one watcher function per wait (a process may have ten
 * thousand queued); {@link waitUntilGone} is the promise-shaped public helper.
 */

/**
 * Runs `tell` in the order of watch events: the session delivers events with `setImmediate` and
 * replies as promise reactions, so a departure learnt from a reply (a NO_NODE answer to a watch
 * request: the node is already gone) must wait its turn, or it would overtake events the server
 * sent before that reply (e.g. the creation of a node that now stands ahead of us).
 */
export function tellAsEvent(tell: () => void): void {
  setImmediate(tell);
}

/** Why a wait on a node ended without an error. */
export type NodeWaitOutcome =
  /** The node was deleted (or had already gone when we looked). */
  | 'gone'
  /** The node's data changed (a holder nudging its successor); the caller should look again. */
  | 'changed';

/**
 * Waits until the node at `path` is gone, or its data changes, or `signal` fires (then rejects
 * with `signal.reason`).
 *
 * It sets a *data* watch (getData), not an `exists` watch: on a node that is already gone a data
 * watch is not set at all, so nothing dangles. An ended wait unregisters its callback at once, so
 * abandoned waits on a node that stays put do not pile up; the session's registry forgets the
 * one-shot wire watch when it fires or the session ends.
 */
export function waitUntilGone(session: ZkSession, path: string, signal: AbortSignal): Promise<NodeWaitOutcome> {
  const stop = StopSignal.following(signal, session.scope.get(abortFanOutOf));
  const wait = new PromisedNodeWatch(session, path, stop);
  wait.begin();
  return wait.outcome.finally(() => stop.dispose());
}

/**
 * A wait for one node to go or change, reporting to its subclass ({@link settled} /
 * {@link failed}). Call {@link begin} once constructed.
 */
export abstract class NodeWatch implements StopListener {
  private ended = false;
  /** Ended by cancel() or the stop while the node may stay: its watches are removed from the server. */
  private givenUp = false;
  private readonly watcher: (event: WatchEvent) => void;

  constructor(
    protected readonly session: ZkSession,
    protected readonly path: string,
    private readonly stop: StopSignal,
    /**
     * Watch for the node's deletion only: a *child* watch (getChildren on the node), which the
     * server fires when the node is deleted and never when its data changes (a lock node is
     * ephemeral and has no children), so a foreign write wakes no one. Otherwise a data watch
     * (getData), which also fires on a change of its data and reads it ({@link watched}).
     */
    private readonly deletionOnly = false,
  ) {
    this.watcher = (event) => this.onEvent(event.type === 'deleted' ? 'gone' : 'changed');
  }

  /** Whether the wait has ended (settled, failed or cancelled). */
  protected get isEnded(): boolean {
    return this.ended;
  }

  /** Subscribes to the stop and sets the watch. */
  begin(): void {
    this.stop.addStopListener(this);
    if (this.ended) return; // stopped already: nothing is sent
    this.beforeArm();
    this.arm();
  }

  /** Sends what must go before the watch's own request (a subclass's other watches). */
  protected beforeArm(): void {}

  /** The watch is set; `stat` and `data` are the node's as of then. */
  protected watched(_stat: Stat, _data: Uint8Array): void {}

  /** The watch fired: by default the wait ends with that outcome. */
  protected onEvent(outcome: 'gone' | 'changed'): void {
    this.settle(outcome);
  }

  /** The watch's request found the node gone (NO_NODE): by default, as its deletion event. */
  protected goneAtRead(): void {
    this.onEvent('gone');
  }

  /** Sets the watch (again, after a change used it up); a data watch's reply goes to {@link watched}. */
  protected arm(): void {
    // `...IfExists`: a node already gone is an answer (null), which builds no error.
    if (this.deletionOnly) this.onWatchReply(this.session.getChildrenIfExists(this.path, this.watcher), noReply);
    else this.onWatchReply(this.session.getDataIfExists(this.path, this.watcher), ({ stat, data }) => this.watched(stat, data));
  }

  /** What every request that sets one of our watches does with its reply. */
  private onWatchReply<T>(reply: Promise<T | null>, set: (value: T) => void): void {
    reply.then(
      (value) => {
        // Already gone (no watch was set): told like the deletion event it stands for.
        if (value === null) tellAsEvent(() => this.ended || this.goneAtRead());
        // Ended before the reply registered the watch: unregister it now.
        else if (this.ended) this.forget();
        else set(value);
      },
      (err: unknown) => {
        if (this.end(false)) this.failed(err);
      },
    );
  }

  /** Ends the wait now with `outcome` (nothing happens if it has already ended). */
  settle(outcome: NodeWaitOutcome): void {
    if (this.end(false)) this.settled(outcome);
  }

  /**
   * Gives the wait up: unregisters everything, and removes its watches from the server (the node
   * may stay for long); neither {@link settled} nor {@link failed} is called.
   */
  cancel(): void {
    this.end(true);
  }

  /** Ends the wait with `outcome` and removes its watches from the server (the node may stay). */
  protected giveUp(outcome: NodeWaitOutcome): void {
    if (this.end(true)) this.settled(outcome);
  }

  /** Ends the wait with an error (its watches are removed from the server). */
  protected fail(reason: unknown): void {
    if (this.end(true)) this.failed(reason);
  }

  /** @internal The stop fired. */
  stopped(): void {
    if (this.end(true)) this.failed(this.stop.reason);
  }

  /** The node went, changed, or the wait was settled by hand. Called at most once. */
  protected abstract settled(outcome: NodeWaitOutcome): void;

  /** The wait failed: the stop fired (its reason), or the watch's request failed. Called at most once. */
  protected abstract failed(reason: unknown): void;

  /** Called once when the wait ends, however it ends. */
  protected onEnd(): void {}

  /**
   * Marks the wait ended and unregisters it; false if it had ended already.
   * @param givenUp the node may stay (cancel, stop): also remove our watches from the server. When
   *   the node went, they fired.
   */
  private end(givenUp: boolean): boolean {
    if (this.ended) return false;
    this.ended = true;
    this.givenUp = givenUp;
    this.stop.removeStopListener(this);
    this.forget();
    this.onEnd();
    return true;
  }

  private forget(): void {
    if (this.givenUp) this.session.removeWatches(this.path, this.watcher);
    else this.session.unwatch(this.path, this.watcher);
  }
}

function noReply(): void {}

/** A {@link NodeWatch} whose outcome is a promise. */
class PromisedNodeWatch extends NodeWatch {
  private resolve!: (outcome: NodeWaitOutcome) => void;
  private reject!: (reason: unknown) => void;
  readonly outcome = new Promise<NodeWaitOutcome>((resolve, reject) => {
    this.resolve = resolve;
    this.reject = reject;
  });

  protected settled(outcome: NodeWaitOutcome): void {
    this.resolve(outcome);
  }

  protected failed(reason: unknown): void {
    this.reject(reason);
  }
}

/** Where a {@link CreationWatch} reports. */
export interface CreationSink {
  /** The node exists (it did when the watch was set, or it was created since). */
  created(): void;
  /** The watch is set and the node was absent then: from now on its creation is reported. */
  absent(): void;
  /** The request failed (e.g. the connection was lost). */
  creationWatchFailed(reason: unknown): void;
}

/**
 * Watches for a node that should not exist: an `exists` watch on its path. While the node stays
 * absent the watch sits on the server, so {@link cancel} removes it there (REMOVE_WATCHES) when
 * the wait ends: a wait per hand-off must not leave a watch per hand-off behind.
 */
export class CreationWatch {
  private ended = false;
  private readonly watcher: Watcher = () => {
    if (this.end()) this.sink.created();
  };

  constructor(
    private readonly session: ZkSession,
    private readonly path: string,
    private readonly sink: CreationSink,
  ) {}

  begin(): void {
    this.session.exists(this.path, this.watcher).then(
      (stat) => {
        // Cancelled while the request was out: the watch it set has nobody to tell.
        if (this.ended) {
          this.session.removeWatches(this.path, this.watcher);
          return;
        }
        if (stat === null) {
          this.sink.absent();
        } else if (this.end()) {
          this.session.unwatch(this.path, this.watcher); // its change or deletion would fire it: nobody to tell
          this.sink.created();
        }
      },
      (err: unknown) => {
        if (this.end()) this.sink.creationWatchFailed(err);
      },
    );
  }

  /** Ends the watch without reporting; its server-side watch is removed. */
  cancel(): void {
    if (this.end()) this.session.removeWatches(this.path, this.watcher);
  }

  private end(): boolean {
    if (this.ended) return false;
    this.ended = true;
    return true;
  }
}

/**
 * Waits told when their session's connection is lost (`suspended`), through one session listener
 * per session (one of these per session: the engine's scope keeps it): a process may have
 * thousands of waits, and an emitter's listener list costs O(n) to remove from.
 */
export class Suspensions {
  private listeners: Set<() => void> | undefined;

  constructor(private readonly session: ZkSession) {}

  /** Calls `listener` at the session's next `suspended` until the returned function is called. */
  onSuspended(listener: () => void): () => void {
    const set = (this.listeners ??= this.listen());
    set.add(listener);
    return () => set.delete(listener);
  }

  /**
   * The one session listener, made in a function of its own: a closure made inside
   * {@link onSuspended} would share that call's scope, and with it keep the first waiter's listener
   * (and everything it reaches) for the session's whole life.
   */
  private listen(): Set<() => void> {
    const set = new Set<() => void>();
    this.session.on('suspended', () => {
      for (const notify of [...set]) notify();
    });
    return set;
  }
}
