import { joinPath, type QueueEntry } from '../nodes/index.js';
import type { ZkSession } from '../session/ZkSession.js';
import type { Recheck } from '../signals/Recheck.js';
import { StopSignal } from '../signals/StopSignal.js';
import { waitForChildrenChange, type WatchedListing } from '../watch/ChildrenWatch.js';
import { AnyOfWait, type AnyOfSink } from './AnyOfWait.js';
import type { ListingWindow } from './DirectoryListings.js';
import type { EngineScope } from './EngineScope.js';
import type { DirectoryRecord } from './lockDirectory.js';
import { NodeCreation, ownNodeDeleted } from './NodeCreation.js';
import { ObstacleWait, type NodeDecision, type WaitResult, type WaitSink } from './ObstacleWait.js';
import { beginHolding, heldSeat } from './holding.js';
import { OwnNodeWatch, type OwnNodeSink, type QueueNode, type QueueSeat } from './ownNode.js';
import { QueueLeaving } from './QueueLeaving.js';
import type { Created, EnterOptions, QueueOps } from './QueueOps.js';
import { StepRetries } from './StepRetries.js';

/**
 * {@link QueueOps} on one lock directory of one session: the waits and the grant's bookkeeping
 * here, the create ({@link NodeCreation}) and the delete ({@link QueueLeaving}) beside it, their
 * retries ({@link StepRetries}) under the session's policy.
 */
export class ZkQueueOps implements QueueOps {
  /** Background clean-ups (given-up creates, deletes that outlived their acquisition, sweeps). */
  private readonly cleanups = new Set<Promise<void>>();
  readonly session: ZkSession;
  readonly what: string;
  private readonly isConnected = (): boolean => this.session.isConnected;
  private readonly creation: NodeCreation;
  private readonly leaving: QueueLeaving;

  constructor(
    readonly scope: EngineScope,
    /** The lock directory; our nodes are its children. */
    readonly path: string,
    record: DirectoryRecord | undefined,
  ) {
    this.session = scope.session;
    this.what = `lock ${path}`;
    const retries = new StepRetries(scope, this.what);
    const inBackground = (work: Promise<void>): void => this.inBackground(work);
    this.leaving = new QueueLeaving(scope, path, retries, inBackground);
    this.creation = new NodeCreation(scope, path, record, retries, this.leaving, inBackground);
  }

  stopFor(options: Pick<EnterOptions, 'signal' | 'timeoutMs'>, what = this.what): StopSignal {
    return new StopSignal({
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      sessionSignal: this.session.sessionSignal,
      isConnected: this.isConnected,
      what,
      fanOut: this.scope.fanOut,
    });
  }

  /** Resolves when every background clean-up started so far has finished. */
  async settled(): Promise<void> {
    while (this.cleanups.size > 0) await Promise.allSettled([...this.cleanups]);
  }

  inBackground(work: Promise<void>): void {
    this.cleanups.add(work);
    void work.finally(() => this.cleanups.delete(work));
  }

  enqueue(options: EnterOptions, stop: StopSignal): Promise<Created> {
    return this.creation.enqueue(options, stop);
  }

  seat(path: string, sink: OwnNodeSink, revocable: boolean): OwnNodeWatch {
    const own = new OwnNodeWatch(this.session, this.scope, path, sink, revocable);
    this.scope.seats.set(path, { held: false, own });
    return own;
  }

  holdSeat(node: QueueNode, sessionSignal: AbortSignal, onRevoke: (() => void) | undefined, grantedAt: number): QueueSeat {
    const state = this.scope.seats.get(node.path)!;
    return heldSeat(node, beginHolding(state, state.own!, this.scope.fanOut, sessionSignal, onRevoke), grantedAt);
  }

  leave(seat: QueueNode): Promise<void> {
    return this.leaving.leave(seat);
  }

  list(stop: StopSignal, window?: ListingWindow): Promise<string[]> {
    return this.creation.list(stop, window);
  }

  placeIn(children: string[], seat: QueueNode, stop: StopSignal): { queue: QueueEntry[]; ownIndex: number } {
    const { queue, indexOf } = this.scope.sortedQueueOf(children);
    const ownIndex = indexOf.get(seat.name) ?? -1;
    if (ownIndex < 0) {
      stop.throwIfStopped();
      throw ownNodeDeleted(this.path, seat);
    }
    return { queue, ownIndex };
  }

  /**
   * Waits for the node `decision` names and reports to `sink` how it ended (see
   * {@link ObstacleWait}). On the common path that is one wait object and no promise.
   */
  waitFor(decision: NodeDecision, recheck: Recheck | undefined, stop: StopSignal, sink: WaitSink): ObstacleWait | undefined {
    if (recheck === undefined) {
      const wait = this.obstacleWait(decision, stop, sink);
      wait.begin();
      return wait;
    }
    this.waitOrRecheck(decision, recheck, stop).then(
      (next) => sink.waited(next),
      (err: unknown) => sink.waitFailed(err),
    );
    return undefined;
  }

  private obstacleWait(decision: NodeDecision, stop: StopSignal, sink: WaitSink): ObstacleWait {
    const path = joinPath(this.path, decision.waitFor);
    const shortcut = decision.lastObstacleIfHeld === true || decision.decideBehindIfHeld === true;
    const predecessor = shortcut ? this.scope.seats.get(path) : undefined;
    return new ObstacleWait(this.scope, path, stop, decision, predecessor, sink);
  }

  /** The node wait of a recipe with outside changes: ends early ('relist') when one is signalled. */
  private async waitOrRecheck(decision: NodeDecision, recheck: Recheck, stop: StopSignal): Promise<WaitResult> {
    let sink!: WaitSink;
    const outcome = new Promise<WaitResult>((resolve, reject) => (sink = { waited: resolve, waitFailed: reject }));
    outcome.catch(() => undefined); // we may return before it settles (and then cancel the wait)
    const wait = this.obstacleWait(decision, stop, sink);
    wait.begin();
    try {
      return await Promise.race([outcome, recheck.next().then(() => 'relist' as const)]);
    } finally {
      wait.cancel();
    }
  }

  waitForAnyOf(stop: StopSignal, sink: AnyOfSink): AnyOfWait {
    return new AnyOfWait(this.session, this.scope.suspensions, this.path, stop, sink);
  }

  waitForChildren(children: string[], armed: WatchedListing | undefined, recheck: Recheck | undefined, stop: StopSignal): Promise<WatchedListing | 'relist'> {
    return waitForChildrenChange(this.session, this.path, children, armed, recheck, stop);
  }
}
