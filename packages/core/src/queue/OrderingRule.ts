import type { QueueEntry } from '../nodes/index.js';

/**
 * What a contender does after reading the queue: it holds the lock, or it waits for one node,
 * or (only the first of several waiters of a counting semaphore) for any change of the queue.
 */
export type Decision =
  | {
      readonly held: true;
      /**
       * Touch our node's data once held, waking a successor that watches us (a semaphore's next
       * waiter, which is now the first waiter and must watch the holders: `relistIfTouched`).
       * Costs one write, not awaited; the engine skips it when a fresh listing shows nobody
       * behind us (a waiter that listed after it then sees us holding).
       */
      readonly nudgeSuccessor?: boolean;
      /** See {@link exclusiveRule}: touch our node now that we hold, for the waiter behind us. */
      readonly announceHolding?: boolean;
    }
  | {
      readonly held: false;
      /** The child name to watch. Only this node's going (or nudge) wakes us: no herd. */
      readonly waitFor: string;
      /**
       * True when `waitFor` is the only node standing in our way. Nodes never appear ahead of ours
       * (sequences only grow), so when it goes we hold the lock without listing again. A rule that
       * can see nodes appear ahead of it (e.g. a read/write downgrade) must say false.
       */
      readonly lastObstacle: boolean;
      /**
       * True when, had `waitFor` been holding the lock, nothing else could be ahead of us (an
       * exclusive holder is always first). When `waitFor` is a node of this process that goes as a
       * holder, the engine then takes the lock without listing again.
       */
      readonly lastObstacleIfHeld?: boolean;
      /**
       * With nodes between `waitFor` and us: had `waitFor` been holding the lock, every node ahead
       * of it had gone (an exclusive holder is first). When it goes having held, the engine
       * decides again on the nodes behind it in the listing we decided on, without listing again.
       * Only `waitFor`'s own downgrade node could appear among them: name it in
       * `relistIfCreated`.
       */
      readonly decideBehindIfHeld?: boolean;
      /**
       * The watched node is touched (its version raised) when it becomes a holder, and that
       * changes our answer (a semaphore's nudge): its data change ends the wait, and a version
       * above 0 when our watch is set means the touch came first: we decide again at once.
       */
      readonly relistIfTouched?: boolean;
      /** See {@link exclusiveRule}: announce ourselves when this wait ends with the lock held. */
      readonly announceHolding?: boolean;
      /**
       * `waitFor` announces when it holds (see {@link exclusiveRule}): a data change, or a version
       * above 0 when our watch is set, means it holds; with `lastObstacleIfHeld` its going then
       * leaves us the lock without listing again.
       */
      readonly watchedAnnounces?: boolean;
      /**
       * The name of a node, absent now, whose creation would put a node ahead of us at `waitFor`'s
       * place (a read/write lock's downgrade read node). The engine watches for it from the start
       * of the wait: if it is there, or appears, we list again. Its creation precedes `waitFor`'s
       * going in the server's order, so the last-obstacle shortcuts stay exact.
       */
      readonly relistIfCreated?: string;
    }
  | {
      readonly held: false;
      /**
       * Wait until any of these nodes goes, then decide again on the same listing without the
       * nodes seen gone: no new listing. Name every node ahead of ours whose going could change
       * the answer (a semaphore's first waiter: all the holders; a writer behind reading
       * holders: all of them). The engine watches each, so whichever goes wakes this contender,
       * and only it; arrivals behind it wake nobody. Deciding on the old listing is exact because
       * nodes never appear ahead of ours (sequences only grow) and every node that matters is
       * watched.
       */
      readonly waitForAnyOf: readonly string[];
      /**
       * Names of nodes, absent now, that could appear ahead of ours (a read/write lock's downgrade
       * read nodes): as for a single node's wait, the engine watches for their creation from the
       * start and lists again if one is there or appears; no departure is acted on before each
       * absence is confirmed.
       */
      readonly relistIfCreated?: readonly string[];
    }
  | {
      readonly held: false;
      /** Wait for any change of the queue's children, then decide again. */
      readonly waitForChildren: true;
    };

/**
 * The most nodes a rule should name in `waitForAnyOf`. Above it, one watch per node ahead costs
 * more than it saves: a rule falls back to one node or the directory.
 */
export const MAX_ANY_OF_WATCHES = 64;

/**
 * A recipe's only knowledge: given the queue sorted by sequence and our place in it, do we hold
 * the lock, and if not, what do we wait for? Must be pure: it is unit-tested without a server.
 */
export type OrderingRule = (queue: readonly QueueEntry[], ownIndex: number) => Decision;

/**
 * Mutex: held if first; otherwise wait for the immediate predecessor.
 *
 * Holder announcement (exclusive locks). A waiter that listed while its predecessor was still
 * waiting cannot tell, when that node goes, whether it went as the holder (then the lock is ours)
 * or gave up early (then someone may still be ahead): it must list again, one more round trip on
 * every hand-off. So a contender that is granted the lock touches its node (setData, not awaited,
 * done while it holds) when the node behind it may belong to another process; the waiter watching
 * it sees the change (or a version above 0 when it sets its watch), re-arms its watch, and takes
 * the lock as soon as the node goes. Successors in this process need no touch (they are handed
 * over locally). Curator's waiters, which wake on any event, simply list again.
 */
export const exclusiveRule: OrderingRule = (queue, ownIndex) => {
  if (ownIndex === 0) return { held: true, announceHolding: true };
  const predecessor = queue[ownIndex - 1]!;
  return {
    held: false,
    waitFor: predecessor.name,
    lastObstacle: ownIndex === 1,
    lastObstacleIfHeld: true,
    announceHolding: true,
    watchedAnnounces: true,
  };
};
