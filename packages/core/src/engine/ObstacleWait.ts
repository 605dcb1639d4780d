import { joinPath, parentOf } from '../nodes/index.js';
import type { HintedDecision } from './OrderingRule.js';
import type { Stat } from '../session/types.js';
import type { StopSignal } from '../signals/StopSignal.js';
import { CreationWatch, NodeWatch, type CreationSink, type NodeWaitOutcome } from '../watch/NodeWatch.js';
import type { EngineScope } from './EngineScope.js';
import { isAnnouncement } from '../nodes/nodeData.js';
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
  /** `relistIfTouched`: the wait ends because `name` was found at `version` when watched. */
  touchFound?(name: string, version: number): void;
}

/**
 * A waiter's wait for the node its rule named, reporting straight what the engine does next:
 * 'held' when that node was the last obstacle (or went as a holder: of this process, or one that
 * announced itself), 'passed' (it went as a holder, with nodes between it and us), else 'relist'
 * (it went, or it was nudged). 'held' and 'passed' are hints: the contender grants only while its
 * own node is known to exist (see `OwnNodeWatch`).
 */
export class ObstacleWait extends NodeWatch implements CreationSink {
  /** The watched node announced that it holds the lock (see exclusiveRule), verified by its data. */
  private announcedHolder = false;
  /** The watch for the node the rule named in `relistIfCreated`, if any. */
  private readonly creation: CreationWatch | undefined;
  /** `relistIfCreated`: the node's absence is not confirmed yet. */
  private creationUnknown: boolean;
  /** The watched node went before that absence was confirmed: decided once it is. */
  private goneEarly = false;
  /**
   * The listing sent right behind the re-read of an announcement (see `onEvent`): decided on if
   * that re-read finds the node gone, dropped otherwise.
   */
  private listingBehindReRead: Promise<string[] | undefined> | undefined;
  /** The re-read of an announcement answered NO_NODE: the listing behind it is newer than the deletion. */
  private goneAtReRead = false;
  /** Ends the `suspended` subscription, if any. */
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly scope: EngineScope,
    path: string,
    private readonly contenderStop: StopSignal,
    private readonly decision: NodeDecision,
    /** Our predecessor if it is a node of this process and the rule allows the hand-over shortcut. */
    private readonly predecessor: LocalSeatState | undefined,
    private readonly sink: WaitSink,
    /** `relistIfTouched`: the version of `waitFor` we already decided again for (0: none). */
    private readonly touchActedOn = 0,
  ) {
    super(scope.session, path, contenderStop);
    const appears = decision.relistIfCreated;
    this.creation = appears === undefined ? undefined : new CreationWatch(scope.session, joinPath(parentOf(path), appears), this);
    this.creationUnknown = appears !== undefined;
  }

  protected override beforeArm(): void {
    if (this.creation === undefined) return;
    // Sent first, answered first: the node's absence is known before any reply about `waitFor`.
    this.creation.begin();
    // After a reconnection the server tells replayed watches' deletions before creations, so
    // their order no longer says which came first: decide again on a fresh listing.
    this.unsubscribe = this.scope.suspensions.onSuspended(() => this.giveUp('changed'));
  }

  protected override watched(stat: Stat, data: Uint8Array): void {
    if (stat.version === 0) return;
    // Announced (before our watch was set, or since: we read it again after a change); anything
    // else written there (an operator's `set`, Curator's revocation marker) proves nothing.
    if (this.decision.watchedAnnounces === true && isAnnouncement(data, stat.ephemeralOwner)) this.announcedHolder = true;
    // Touched before our watch was set: its change is already behind us. (Unless we acted on that
    // very version already: a node touched for another reason must not make us list in a loop.)
    if (this.decision.relistIfTouched === true && stat.version > this.touchActedOn) {
      this.sink.touchFound?.(this.decision.waitFor, stat.version);
      this.settle('changed');
    }
  }

  protected override onEvent(outcome: 'gone' | 'changed'): void {
    if (outcome === 'changed' && this.decision.watchedAnnounces === true) {
      // Perhaps it holds now: read what was written, with the watch set again, and keep waiting
      // for it to go. Only its own session's announcement counts (`watched`). A holder with a short
      // critical section is often gone by the time that read arrives; the listing sent in the same
      // pipeline is then the fresh listing we need, already on its way (docs/architecture.md,
      // "Holder announcement").
      this.arm();
      // Shared with every waiter of this session told of the same change (N readers of one
      // process behind one writer send one listing, not N); sent after the read in any case.
      this.listingBehindReRead = this.scope.nextListing(parentOf(this.path)).then(
        (children) => children,
        () => undefined, // lost with the connection: we list again as usual
      );
      return;
    }
    if (outcome === 'gone' && this.creationUnknown) {
      this.goneEarly = true; // is the node that would stand in its place there? The reply is on its way
      return;
    }
    this.settle(outcome);
  }

  protected override goneAtRead(): void {
    // Sent after the re-read on the same session, the listing is served after it, so after the deletion.
    if (this.listingBehindReRead !== undefined) this.goneAtReRead = true;
    this.onEvent('gone');
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

  protected settled(outcome: NodeWaitOutcome): void {
    const decision = this.decision;
    const heldAhead = (this.predecessor !== undefined && leavesAsHolder(this.predecessor)) || this.announcedHolder;
    const wentAsHolder = outcome === 'gone' && heldAhead;
    let next: WaitResult = 'relist';
    if (outcome === 'gone' && decision.lastObstacle) next = 'held';
    else if (wentAsHolder && decision.lastObstacleIfHeld === true) next = 'held';
    else if (wentAsHolder && decision.decideBehindIfHeld === true) next = 'passed';
    const listing = this.listingBehindReRead;
    if (next === 'relist' && outcome === 'gone' && this.goneAtReRead && listing !== undefined) {
      // The wait has ended, so the stop is raced here: an abort or a deadline while the listing
      // is on its way ends the acquisition at once.
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
  }
}
