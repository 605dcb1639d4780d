import type { QueueEntry } from '../nodes/index.js';

/**
 * What a contender does after reading the queue (docs/architecture.md, "The lock-queue engine"):
 * hold the lock, or wait, then read the queue again and decide again. A rule that returns only
 * these is correct on its own; {@link Hints} only save requests.
 */
export type Decision =
  | {
      /** We hold the lock (or lease). */
      readonly held: true;
    }
  | {
      /** We wait. */
      readonly held: false;
      /** The child name to watch: its going wakes us. No herd. */
      readonly waitFor: string;
    }
  | {
      /** We wait. */
      readonly held: false;
      /**
       * Wait until any of these nodes goes, then decide again. Name nodes ahead whose presence
       * alone keeps the answer "wait" (a semaphore waiter's proof: the nearest nodes ahead holding
       * too many leases for ours; a writer behind reading holders: all of them): while they all
       * stand nothing else matters, and whichever goes wakes this contender.
       */
      readonly waitForAnyOf: readonly string[];
    }
  | {
      /** We wait. */
      readonly held: false;
      /** Wait for any change of the queue's children, then decide again. */
      readonly waitForChildren: true;
    };

/**
 * Shortcuts beside a {@link Decision}: each lets the engine decide without listing the queue
 * again, which is exact only under the fact named with it. Omitting any of them never changes
 * an outcome, only costs listings (the property test `hints.property.test.ts` shows it).
 *
 * The facts: sequences only grow, so no node appears ahead of ours, except nodes named in
 * `relistIfCreated` (a read/write lock's downgrade read node, which takes its writer's place);
 * and an exclusive holder is first in the queue, so when one goes as a holder, every node ahead
 * of it had gone.
 */
export interface Hints {
  /** `waitFor` is the only node in our way: when it goes, we hold without listing. */
  readonly lastObstacle?: boolean;
  /**
   * Had `waitFor` held the lock, nothing else would be ahead of us: when it goes as a holder (a
   * node of this process that held), we hold without listing.
   */
  readonly lastObstacleIfHeld?: boolean;
  /**
   * Had `waitFor` held the lock, every node ahead of it had gone: when it goes as a holder (a node
   * of this process that held), we decide again on the nodes behind it in the listing we decided
   * on, without listing.
   */
  readonly decideBehindIfHeld?: boolean;
  /**
   * The node ahead of `waitFor` whose going may leave `waitFor` as our last obstacle (the node two
   * ahead of a mutex waiter). The engine watches it too, for its deletion only, and lists again
   * when it goes, while `waitFor` is still there (its own release is still to come): when that
   * listing shows `waitFor` as the last obstacle, the going of `waitFor` grants without a round
   * trip (docs/architecture.md, "The node two ahead").
   */
  readonly watchAhead?: string;
  /**
   * `waitForAnyOf`: when one goes, decide again on the listing we waited on without the nodes
   * seen gone (no listing). Safe because nothing but `relistIfCreated` can appear ahead, so that
   * listing holds every node still ahead, and maybe some gone unseen: a grant decided on it is
   * one a fresh listing would make. A decision to wait that names a node not watched yet may be
   * naming one gone unseen: the engine lists again then, keeping the watches it has.
   */
  readonly reuseListing?: boolean;
  /**
   * Names, absent now, whose creation would put a node ahead of ours (a downgrade read node at a
   * writer's place): the engine watches for them first and lists again if one is there or
   * appears. Its creation precedes its writer's going in the server's order, so every shortcut
   * above stays exact. Required by those shortcuts wherever such a node can appear; a node wait
   * takes at most one.
   */
  readonly relistIfCreated?: readonly string[];
}

/**
 * What the engine acts on ({@link decideWithHints}): one outcome with the hints that apply to it,
 * flat. A node wait always says whether its node is the last obstacle (false without the hint),
 * and names at most one node to watch for creation. Its fields are those of {@link Decision} and
 * {@link Hints}.
 *
 * @useDeclaredType
 */
export type HintedDecision =
  | Extract<Decision, { held: true }>
  | (Extract<Decision, { waitFor: string }> &
      Omit<Hints, 'lastObstacle' | 'reuseListing' | 'relistIfCreated'> & {
        /** The hint `lastObstacle`, resolved: when `waitFor` goes, we hold without listing. */
        readonly lastObstacle: boolean;
        /** The hint `relistIfCreated`, resolved to the node to watch for creation. */
        readonly relistIfCreated?: string;
      })
  | (Extract<Decision, { waitForAnyOf: readonly string[] }> & Pick<Hints, 'relistIfCreated'>)
  | Extract<Decision, { waitForChildren: true }>;

/**
 * The most nodes a rule should name in `waitForAnyOf`. Above it, one watch per node ahead costs
 * more than it saves: a rule falls back to one node or the directory.
 */
export const MAX_ANY_OF_WATCHES = 64;

/**
 * A recipe's only knowledge: given the queue sorted by sequence and our place in it, do we hold
 * the lock, and if not, what do we wait for (`decide`, pure, unit-tested without a server)? And,
 * optionally, which shortcuts are exact there (`hints`, given the decision).
 */
export interface OrderingRule {
  /** Whether the entry at `ownIndex` holds, and if not what it waits for. Pure: no I/O, no state. */
  decide(queue: readonly QueueEntry[], ownIndex: number): Decision;
  /** The shortcuts the engine may take with `decision` (each one exact, docs/architecture.md, "Rules and hints"). */
  hints?(queue: readonly QueueEntry[], ownIndex: number, decision: Decision): Hints;
}

/**
 * The one call the engine makes: the rule's decision with the hints that apply to it. A wait for
 * any of several nodes without `reuseListing` becomes a wait for the children: the engine
 * decides again on the old listing after such a wait, which only that hint makes exact.
 */
export function decideWithHints(rule: OrderingRule, queue: readonly QueueEntry[], ownIndex: number): HintedDecision {
  const decision = rule.decide(queue, ownIndex);
  const hints = rule.hints?.(queue, ownIndex, decision) ?? {};
  if (decision.held) return decision;
  if ('waitFor' in decision) {
    const { reuseListing: _, relistIfCreated: appears = [], ...rest } = hints;
    if (appears.length > 1) throw new RangeError(`a wait for ${decision.waitFor} watches at most one node for creation`);
    const appearsAhead = appears.length === 1 ? { relistIfCreated: appears[0]! } : {};
    return { ...decision, ...rest, lastObstacle: hints.lastObstacle === true, ...appearsAhead };
  }
  if ('waitForAnyOf' in decision) {
    if (hints.reuseListing !== true) return { held: false, waitForChildren: true };
    const appears = hints.relistIfCreated ?? [];
    return appears.length === 0 ? decision : { ...decision, relistIfCreated: appears };
  }
  return decision;
}

/** `rule` without its hints: what the engine does then is correct, only costlier. */
export function withoutHints(rule: OrderingRule): OrderingRule {
  return { decide: (queue, ownIndex) => rule.decide(queue, ownIndex) };
}

/**
 * Mutex: held if first; otherwise wait for the immediate predecessor.
 *
 * Hints: the predecessor is the last obstacle when it is first; a predecessor of this process
 * that held is one too; and the node two ahead is watched as well, so that when it goes, a
 * listing made while the predecessor still holds (off the critical path) tells us the predecessor
 * is now the last obstacle, and its release then hands the lock over with one notification.
 */
export const exclusiveRule: OrderingRule = {
  decide: (queue, ownIndex) => (ownIndex === 0 ? { held: true } : { held: false, waitFor: queue[ownIndex - 1]!.name }),
  hints: (queue, ownIndex, decision) =>
    decision.held ? {} : { lastObstacle: ownIndex === 1, lastObstacleIfHeld: true, ...(ownIndex >= 2 ? { watchAhead: queue[ownIndex - 2]!.name } : {}) },
};
