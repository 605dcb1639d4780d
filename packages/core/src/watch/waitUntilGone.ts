import { isZkError } from '../errors.js';
import { stoppableOf, type StopListener, type Stoppable } from '../queue/stoppable.js';
import type { ZkSession } from '../session/ZkSession.js';
import type { Stat, WatchEvent } from '../session/types.js';
import { tellAsEvent } from './asEvent.js';

/** Why a wait on a node ended without an error. */
export type NodeWaitOutcome =
  /** The node was deleted (or had already gone when we looked). */
  | 'gone'
  /** The node's data changed (a holder nudging its successor); the caller should look again. */
  | 'changed';

/** A wait on one node: its outcome, and ways to end it early. */
export interface NodeWait {
  /** Settles at the node's deletion or data change; rejects with the stop reason when stopped. */
  readonly outcome: Promise<NodeWaitOutcome>;
  /** Ends the wait now with `outcome` (nothing happens if it has already ended). */
  settle(outcome: NodeWaitOutcome): void;
  /** Gives the wait up: unregisters everything; `outcome` never settles. */
  cancel(): void;
}

/**
 * Waits until the node at `path` is gone, or its data changes, or `stop` fires.
 *
 * It sets a *data* watch (getData), not an `exists` watch: on a node that is already gone a data
 * watch is not set at all, so nothing dangles. An ended wait unregisters its callback at once, so
 * abandoned waits on a node that stays put do not pile up; the session's registry forgets the
 * one-shot wire watch when it fires or the session ends.
 */
export function watchUntilGone(session: ZkSession, path: string, stop: Stoppable): NodeWait {
  const wait = new PromisedNodeWatch(session, path, stop);
  wait.begin();
  return wait;
}

/** {@link watchUntilGone} for an AbortSignal, as a plain promise (rejects with `signal.reason`). */
export function waitUntilGone(session: ZkSession, path: string, signal: AbortSignal): Promise<NodeWaitOutcome> {
  return watchUntilGone(session, path, stoppableOf(signal)).outcome;
}

/**
 * The wait itself, reporting to its subclass ({@link settled} / {@link failed}) rather than through
 * a promise: one object and one watcher function per wait (a process may have ten thousand queued).
 * Call {@link begin} once constructed.
 */
export abstract class NodeWatch implements StopListener {
  private ended = false;
  /** Ended by cancel() or the stop while the node may stay: its watches are removed from the server. */
  private givenUp = false;
  private readonly watcher: (event: WatchEvent) => void;

  constructor(
    protected readonly session: ZkSession,
    protected readonly path: string,
    private readonly stop: Stoppable,
  ) {
    this.watcher = (event) => this.onEvent(event.type === 'deleted' ? 'gone' : 'changed');
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

  /** Sets the data watch (again, after a change used it up); {@link watched} gets the reply. */
  protected arm(): void {
    this.onWatchReply(this.session.getData(this.path, this.watcher), ({ stat, data }) => this.watched(stat, data));
  }

  /** What every request that sets one of our watches does with its reply. */
  private onWatchReply<T>(reply: Promise<T>, set: (value: T) => void): void {
    reply.then(
      (value) => {
        // Ended before the reply registered the watch: unregister it now.
        if (this.ended) this.forget();
        else set(value);
      },
      (err: unknown) => {
        // Already gone: told like the deletion event it stands for.
        if (isZkError(err, 'NO_NODE')) tellAsEvent(() => this.ended || this.goneAtRead());
        else if (this.end(false)) this.failed(err);
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

/** A {@link NodeWatch} whose outcome is a promise. */
class PromisedNodeWatch extends NodeWatch implements NodeWait {
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
