import { joinPath, parentOf } from '../nodes/index.js';
import type { HintedDecision } from './OrderingRule.js';
import type { ZkSession } from '../session/ZkSession.js';
import type { StopSignal } from '../signals/StopSignal.js';
import { CreationWatch, NodeWatch, type CreationSink, type NodeWaitOutcome } from '../watch/NodeWatch.js';
import type { EngineScope } from './EngineScope.js';
import { leavesAsHolder, type LocalSeatState } from './ownNode.js';

/** A decision to wait for one node. */
export type NodeDecision = Extract<HintedDecision, { waitFor: string }>;

/**
 * How a wait for one node ended: we hold the lock; the node we waited for went as a holder
 * (`decideBehindIfHeld`: decide on the nodes behind it); here is a fresh listing; or list again.
 */
export type WaitResult = 'held' | 'passed' | 'relist' | string[];

/** Where a wait for one node reports how it ended: the waiting contender itself, or a promise's settle functions. */
export interface WaitSink {
  waited(result: WaitResult): void;
  waitFailed(reason: unknown): void;
  /**
   * `watchAhead`: the node ahead of the one we wait for went, and `children` is a listing made
   * since. The wait goes on: decide on it, and either keep this wait ({@link ObstacleWait.update})
   * or end it.
   */
  listedAhead?(children: string[]): void;
}

/**
 * A waiter's wait for the node its rule named, reporting straight what the engine does next:
 * 'held' when that node was the last obstacle (or a node of this process that went as the
 * holder), 'passed' (it went as a holder, with nodes between it and us), a listing made after it
 * went, else 'relist'. 'held' and 'passed' are hints: the contender grants only while its own node
 * is known to exist (see `OwnNodeWatch`).
 *
 * The node is watched for its deletion only (a child watch). With `watchAhead`, the node ahead of
 * it is watched too (docs/architecture.md, "The node two ahead").
 */
export class ObstacleWait extends NodeWatch implements CreationSink {
  private decision: NodeDecision;
  /** The watch for the node the rule named in `relistIfCreated`, if any. */
  private readonly creation: CreationWatch | undefined;
  /** `relistIfCreated`: the node's absence is not confirmed yet. */
  private creationUnknown: boolean;
  /** The watched node went before that absence was confirmed: decided once it is. */
  private goneEarly = false;
  /** The watch on `watchAhead`, if any. */
  private ahead: AheadWatch | undefined;
  /**
   * The listing asked for when the node ahead went, not yet decided on. If the node we wait for
   * goes before its answer is read, that answer was served after the deletion (the server answers
   * one session in order, events included): it is the fresh listing we need, already on its way.
   */
  private aheadListing: Promise<string[] | undefined> | undefined;
  /** Ends the `suspended` subscription, if any. */
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly scope: EngineScope,
    path: string,
    private readonly contenderStop: StopSignal,
    decision: NodeDecision,
    /** Our predecessor if it is a node of this process and the rule allows the hand-over shortcut. */
    private readonly predecessor: LocalSeatState | undefined,
    private readonly sink: WaitSink,
  ) {
    super(scope.session, path, contenderStop, true);
    this.decision = decision;
    const appears = decision.relistIfCreated;
    this.creation = appears === undefined ? undefined : new CreationWatch(scope.session, joinPath(parentOf(path), appears), this);
    this.creationUnknown = appears !== undefined;
  }

  /** Whether this wait, as it is, is the one `decision` asks for (its hints may differ: see {@link update}). */
  keeps(decision: NodeDecision): boolean {
    const current = this.decision;
    return (
      decision.waitFor === current.waitFor &&
      decision.relistIfCreated === current.relistIfCreated &&
      (decision.lastObstacleIfHeld === true || decision.decideBehindIfHeld === true) === (current.lastObstacleIfHeld === true || current.decideBehindIfHeld === true)
    );
  }

  /** Goes on waiting under `decision`, decided on a newer listing (see {@link keeps}). */
  update(decision: NodeDecision): void {
    this.decision = decision;
    this.aheadListing = undefined;
    if (this.ahead?.name === decision.watchAhead) return;
    this.ahead?.cancel();
    this.ahead = undefined;
    this.watchAhead();
  }

  protected override beforeArm(): void {
    if (this.creation !== undefined) {
      // Sent first, answered first: the node's absence is known before any reply about `waitFor`.
      this.creation.begin();
      // After a reconnection the server tells replayed watches' deletions before creations, so
      // their order no longer says which came first: decide again on a fresh listing.
      this.unsubscribe = this.scope.suspensions.onSuspended(() => this.giveUp('changed'));
    }
    this.watchAhead();
  }

  protected override onEvent(outcome: 'gone' | 'changed'): void {
    if (outcome === 'gone' && this.creationUnknown) {
      this.goneEarly = true; // is the node that would stand in its place there? The reply is on its way
      return;
    }
    this.settle(outcome);
  }

  /** @internal The node of `relistIfCreated` exists: something changed ahead of us. */
  created(): void {
    this.settle('changed');
  }

  /** @internal The node of `relistIfCreated` was absent when its watch was set. */
  absent(): void {
    this.creationUnknown = false;
    if (this.goneEarly) this.settle('gone');
  }

  /** @internal */
  creationWatchFailed(reason: unknown): void {
    this.fail(reason);
  }

  /** @internal The node ahead of `waitFor` went: list now, while `waitFor` still stands. */
  aheadGone(): void {
    if (this.isEnded) return;
    // Shared with every waiter of this session told of the same change.
    const listing = this.scope.nextListing(parentOf(this.path), 'run').then(
      (children) => children,
      () => undefined, // lost with the connection: the wait goes on, and its watches are set again
    );
    this.aheadListing = listing;
    void listing.then((children) => {
      if (this.isEnded || this.aheadListing !== listing) return;
      this.aheadListing = undefined;
      if (children !== undefined) this.sink.listedAhead?.(children);
    });
  }

  protected settled(outcome: NodeWaitOutcome): void {
    const decision = this.decision;
    const wentAsHolder = outcome === 'gone' && this.predecessor !== undefined && leavesAsHolder(this.predecessor);
    let next: WaitResult = 'relist';
    if (outcome === 'gone' && decision.lastObstacle) next = 'held';
    else if (wentAsHolder && decision.lastObstacleIfHeld === true) next = 'held';
    else if (wentAsHolder && decision.decideBehindIfHeld === true) next = 'passed';
    const listing = this.aheadListing;
    if (next === 'relist' && outcome === 'gone' && listing !== undefined) {
      // Asked for when the node ahead went and not answered before this deletion was read: served
      // after it. The wait has ended, so the stop is raced here: an abort or a deadline while the
      // listing is on its way ends the acquisition at once.
      this.aheadListing = undefined;
      this.contenderStop.race(listing).then(
        (children) => this.sink.waited(children ?? 'relist'),
        (err: unknown) => this.sink.waitFailed(err),
      );
      return;
    }
    this.sink.waited(next);
  }

  protected failed(reason: unknown): void {
    this.sink.waitFailed(reason);
  }

  protected override onEnd(): void {
    this.unsubscribe?.();
    this.creation?.cancel();
    this.ahead?.cancel();
  }

  private watchAhead(): void {
    const name = this.decision.watchAhead;
    if (name === undefined || this.predecessor !== undefined) return; // a local predecessor tells us itself
    this.ahead = new AheadWatch(this, name, this.scope.session, joinPath(parentOf(this.path), name), this.contenderStop);
    this.ahead.begin();
  }
}

/** The deletion watch on the node ahead of the one an {@link ObstacleWait} waits for. */
class AheadWatch extends NodeWatch {
  constructor(
    private readonly owner: ObstacleWait,
    readonly name: string,
    session: ZkSession,
    path: string,
    stop: StopSignal,
  ) {
    super(session, path, stop, true);
  }

  protected settled(outcome: NodeWaitOutcome): void {
    if (outcome === 'gone') this.owner.aheadGone();
  }

  /** A failure (the stop, a lost connection) is the owner's wait's to tell: this one only saves requests. */
  protected failed(): void {}
}
