import type { QueueEntry } from '../nodes/index.js';
import type { ZkSession } from '../session/ZkSession.js';
import type { Recheck } from '../signals/Recheck.js';
import type { StopSignal } from '../signals/StopSignal.js';
import type { WatchedListing } from '../watch/ChildrenWatch.js';
import type { AnyOfSink, AnyOfWait } from './AnyOfWait.js';
import type { ListingWindow } from './DirectoryListings.js';
import type { ObstacleWait, NodeDecision, WaitSink } from './ObstacleWait.js';
import type { OrderingRule } from './OrderingRule.js';
import type { OwnNodeSink, OwnNodeWatch, QueueNode, QueueSeat } from './ownNode.js';
import type { RetryBudget } from '../retry/RetryBudget.js';

/** What one `LockQueue.enter` call asks for. */
export interface EnterOptions {
  /** Node-name kind written after the protection prefix, e.g. `lock-`, `read-`, `write-`. */
  kind: string;
  /** The ordering rule for this kind of contender. */
  rule: OrderingRule;
  /** Data stored in our node (visible to other participants). */
  data?: Uint8Array | null | undefined;
  /** Give up after this many ms (none: wait as long as it takes). */
  timeoutMs?: number | undefined;
  /** Give up when it aborts. */
  signal?: AbortSignal | undefined;
  /**
   * Called when someone asks the holder to release (Curator's revocation protocol: `__REVOKE__`
   * written to our node), while we hold; a request made while we waited is told at the grant.
   */
  onRevoke?: (() => void) | undefined;
  /**
   * Subscribes to outside changes that can change the rule's answer (e.g. a semaphore's shared
   * maximum was raised). The engine decides again when the listener is called. Returns unsubscribe.
   */
  onRecheck?: ((listener: () => void) => () => void) | undefined;
  /**
   * Work the recipe needs done before our node is created (a semaphore records its `maxLeases`).
   * It runs under this acquisition's deadline and signal, and is run again after a connection
   * loss like every other step: it must be idempotent.
   */
  prepare?: (() => Promise<void>) | undefined;
}

/** Our node, just created, and the listing sent behind its create. */
export interface Created {
  path: string;
  name: string;
  /** The node's czxid (its stat is not kept: a queued waiter should not hold eleven fields). */
  fencingToken: bigint;
  children: string[];
  /** See {@link QueueNode.ghostGuid}. */
  ghostGuid?: string | undefined;
  /** The directory's `czxid` from the listing behind the create, when that listing was used. */
  directoryCzxid?: bigint | undefined;
}

/**
 * The ZooKeeper work of one lock queue, as its contenders see it (docs/architecture.md, "The
 * lock-queue engine"): a {@link Contender} sequences these steps and does none of them itself.
 */
export interface QueueOps {
  /** The session the queue's nodes are made in. */
  readonly session: ZkSession;
  /** For error messages: `lock <path>`. */
  readonly what: string;
  /**
   * A stop for one acquisition (or a recipe's own step on the queue, named by `what`): its
   * deadline, its caller's signal, the session's end, followed through the session's fan-out.
   */
  stopFor(options: Pick<EnterOptions, 'signal' | 'timeoutMs'>, what?: string): StopSignal;
  /** Step 1: creates our node and lists the queue behind it (recovering a lost reply by GUID). */
  enqueue(options: EnterOptions, stop: StopSignal): Promise<Created>;
  /** Watches our node from its seating (see {@link OwnNodeWatch}) and registers it as ours. */
  seat(path: string, sink: OwnNodeSink, revocable: boolean): OwnNodeWatch;
  /** Our seat `node` holds from now on, granted at `grantedAt`: its seat, whose signal is made on first use. */
  holdSeat(node: QueueNode, sessionSignal: AbortSignal, onRevoke: (() => void) | undefined, grantedAt: number): QueueSeat;
  /** Lists the queue once connected (shared with the other contenders asking now: in this turn, or in this run). */
  list(stop: StopSignal, window?: ListingWindow): Promise<string[]>;
  /** Our place in a listing, sorted by sequence. Throws if our node is not in it. */
  placeIn(children: string[], seat: QueueNode, stop: StopSignal): { queue: QueueEntry[]; ownIndex: number };
  /**
   * Step 3, one node: waits and reports to `sink` how the wait ended. Returns the wait, which a
   * newer listing may keep (see `ObstacleWait.keeps`), unless outside changes are followed too.
   */
  waitFor(decision: NodeDecision, recheck: Recheck | undefined, stop: StopSignal, sink: WaitSink): ObstacleWait | undefined;
  /** Step 3, any of several nodes: the wait, not begun. */
  waitForAnyOf(stop: StopSignal, sink: AnyOfSink): AnyOfWait;
  /** Step 3, the children: a new listing (watch armed) or `'relist'`. */
  waitForChildren(children: string[], armed: WatchedListing | undefined, recheck: Recheck | undefined, stop: StopSignal): Promise<WatchedListing | 'relist'>;
  /** Deletes our node and forgets it (see `LockQueue.leave`). */
  leave(seat: QueueNode): Promise<void>;
  /** Counts `work` among the queue's clean-ups (`settled()` waits for it): it may outlive its acquisition. */
  inBackground(work: Promise<void>): void;
}

/** What lets a waiter outlive its session: the facade's (see `LockQueue`). */
export interface Survival {
  /**
   * After `reason` (SESSION_LOST) ended an attempt begun at `startedAt`: counts the loss in
   * `losses` (made if absent), waits as the policy says and until connected again, and enters the
   * queue once more; rejects when the deadline, the signal or the policy does not allow it.
   */
  enterAgain(options: EnterOptions, startedAt: number, losses: RetryBudget | undefined, reason: unknown): Promise<QueueSeat>;
}
