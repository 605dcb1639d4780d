import { isZkError } from '../errors.js';
import { stoppableOf, type StopListener, type Stoppable } from '../queue/stoppable.js';
import type { ZkSession } from '../session/ZkSession.js';
import type { WatchEvent } from '../session/types.js';

/** Why a wait on a node ended without an error. */
export type NodeWaitOutcome =
  /** The node was deleted (or had already gone when we looked). */
  | 'gone'
  /** The node's data changed (a holder nudging its successor); the caller should look again. */
  | 'changed'
  /** Ended by the caller with {@link NodeWait.settle} (e.g. a holder in this process handed over). */
  | 'handed-over';

/** A wait on one node: its outcome, and ways to end it early. */
export interface NodeWait<T = NodeWaitOutcome> {
  /** Settles at the node's deletion or data change; rejects with the stop reason when stopped. */
  readonly outcome: Promise<T>;
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
  return new NodeWatch(session, path, stop);
}

/** {@link watchUntilGone} for an AbortSignal, as a plain promise (rejects with `signal.reason`). */
export function waitUntilGone(session: ZkSession, path: string, signal: AbortSignal): Promise<NodeWaitOutcome> {
  return watchUntilGone(session, path, stoppableOf(signal)).outcome;
}

/**
 * The wait itself: one object, one promise and one watcher function per wait (a process may have
 * ten thousand queued). Subclasses may turn the outcome into their own result ({@link interpret})
 * and learn when the wait ends ({@link onEnd}), without another promise or closure.
 */
export class NodeWatch<T = NodeWaitOutcome> implements NodeWait<T>, StopListener {
  readonly outcome: Promise<T>;
  private resolve!: (result: T) => void;
  private reject!: (reason: unknown) => void;
  private ended = false;
  private readonly watcher: (event: WatchEvent) => void;

  constructor(
    private readonly session: ZkSession,
    private readonly path: string,
    private readonly stop: Stoppable,
  ) {
    this.outcome = new Promise<T>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.watcher = (event) => this.settle(event.type === 'deleted' ? 'gone' : 'changed');
    stop.addStopListener(this);
    if (this.ended) return;
    session.getData(path, this.watcher).then(
      () => {
        // Ended before the reply registered the watch: unregister it now.
        if (this.ended) session.unwatch(path, this.watcher);
      },
      (err: unknown) => {
        if (isZkError(err, 'NO_NODE')) this.settle('gone');
        else if (this.end()) this.reject(err);
      },
    );
  }

  /** True once the wait has ended (settled, cancelled or stopped). */
  get isEnded(): boolean {
    return this.ended;
  }

  settle(outcome: NodeWaitOutcome): void {
    if (this.end()) this.resolve(this.interpret(outcome));
  }

  cancel(): void {
    this.end();
  }

  /** @internal The stop fired. */
  stopped(): void {
    if (this.end()) this.reject(this.stop.reason);
  }

  /** What `outcome` resolves with; the outcome itself by default. */
  protected interpret(outcome: NodeWaitOutcome): T {
    return outcome as T;
  }

  /** Called once when the wait ends, however it ends. */
  protected onEnd(): void {}

  /** Marks the wait ended and unregisters it; false if it had ended already. */
  private end(): boolean {
    if (this.ended) return false;
    this.ended = true;
    this.stop.removeStopListener(this);
    this.session.unwatch(this.path, this.watcher);
    this.onEnd();
    return true;
  }
}
