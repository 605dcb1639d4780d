import type { QueueEntry } from '../nodes/index.js';

/**
 * What a contender does after reading the queue: it holds the lock, or it waits for one node.
 */
export type Decision =
  | { readonly held: true }
  | {
      readonly held: false;
      /** The child name to watch. Only this node's going wakes us (no herd). */
      readonly waitFor: string;
      /**
       * True when `waitFor` is the only node standing in our way. Nodes never appear ahead of ours
       * (sequences only grow), so when it goes we hold the lock without listing again.
       */
      readonly lastObstacle: boolean;
    };

/**
 * A recipe's only knowledge: given the queue sorted by sequence and our place in it, do we hold
 * the lock, and if not, whom do we wait for? Must be pure: it is unit-tested without a server.
 */
export type OrderingRule = (queue: readonly QueueEntry[], ownIndex: number) => Decision;

/** Mutex / write lock: held if first; otherwise wait for the immediate predecessor. */
export const exclusiveRule: OrderingRule = (queue, ownIndex) => {
  if (ownIndex === 0) return { held: true };
  const predecessor = queue[ownIndex - 1]!;
  return { held: false, waitFor: predecessor.name, lastObstacle: ownIndex === 1 };
};
