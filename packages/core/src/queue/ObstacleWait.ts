import type { ZkSession } from '../session/ZkSession.js';
import { NodeWatch, type NodeWaitOutcome } from '../watch/waitUntilGone.js';
import { followLocalHolder, unfollowLocalHolder, type LocalSeatState, type LocalSuccessor } from './localSeats.js';
import type { Decision } from './OrderingRule.js';
import type { StopSignal } from './stopSignal.js';
import type { WaitResult } from './waitResult.js';

/** A decision to wait for one node. */
export type NodeDecision = Extract<Decision, { waitFor: string }>;

/**
 * A waiter's wait for the node its rule named, resolving straight to what the engine does next:
 * 'held' when that node was the last obstacle (or was a holder of this process, which hands over
 * as it leaves, without a server round trip), 'relist-watched' after a nudge, else 'relist'.
 */
export class ObstacleWait extends NodeWatch<WaitResult> implements LocalSuccessor {
  private readonly decision: NodeDecision;
  /** Our predecessor if it is a node of this process and the rule allows the hand-over shortcut. */
  private readonly predecessor: LocalSeatState | undefined;

  constructor(session: ZkSession, path: string, stop: StopSignal, decision: NodeDecision, predecessor: LocalSeatState | undefined) {
    super(session, path, stop);
    this.decision = decision;
    this.predecessor = predecessor;
    if (predecessor !== undefined && !this.isEnded) followLocalHolder(predecessor, this);
  }

  protected override interpret(outcome: NodeWaitOutcome): WaitResult {
    const decision = this.decision;
    if (outcome === 'handed-over') return 'held';
    if (outcome === 'gone' && (decision.lastObstacle || (decision.lastObstacleIfHeld === true && this.predecessor?.held === true))) return 'held';
    // A nudge: our predecessor was promoted, so we are probably the first waiter now.
    if (outcome === 'changed' && decision.confirmAfterWatch === true) return 'relist-watched';
    return 'relist';
  }

  protected override onEnd(): void {
    // Undefined while the base constructor runs (a wait stopped before it began).
    if (this.predecessor !== undefined) unfollowLocalHolder(this.predecessor, this);
  }
}
