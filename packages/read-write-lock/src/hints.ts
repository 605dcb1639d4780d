import type { Decision, Hints, QueueEntry } from '@zk-recipes/core/recipe-kit';
import { downgradeNameOf } from './downgradeName.js';
import type { ReadWriteNaming } from './naming.js';

/**
 * The shortcuts beside the read/write rules (`rules.ts`): each lets the engine go on without
 * listing the queue again, and is exact for the reason given (see the core's `Hints`).
 *
 * - A holding writer is first but for its own downgrade read node, so when a writer of this
 *   process that held goes, nothing exclusive is ahead of the node that waited for it.
 * - Each waiter also watches the node before the one it waits for (`watchAhead`: for a reader, the
 *   exclusive node before its nearest one), and lists when that goes, while the node it waits for
 *   still stands: the listing tells whether that node is now its last obstacle.
 * - Only read nodes ever appear ahead of anyone: a downgrade read node, at its writer's place,
 *   named in advance (`downgradeNameOf`). They never block a reader, so a reader's shortcuts need
 *   no watch for them; a writer's do (`relistIfCreated`).
 */
type HintsOf = (queue: readonly QueueEntry[], ownIndex: number, decision: Decision) => Hints;

/** A reader's obstacles are the exclusive nodes ahead; it waits for the nearest. */
export function readHints(naming: ReadWriteNaming): HintsOf {
  return (queue, ownIndex, decision) => {
    if (!('waitFor' in decision)) return {};
    const own = queue[ownIndex]!;
    const exclusive = queue.slice(0, ownIndex).filter((entry) => entry.kind !== naming.read && entry.sequence !== own.sequence);
    const ahead = exclusive.length >= 2 ? { watchAhead: exclusive[exclusive.length - 2]!.name } : {};
    return { lastObstacle: exclusive.length === 1, lastObstacleIfHeld: true, ...ahead };
  };
}

/**
 * A writer's shortcuts. Waiting for any of several nodes, it decides again on the queue it has
 * (`reuseListing`), watching for the downgrade read node of the one writer among them. Waiting
 * for a writer with only readers between it and us (`passWriterAhead`), it decides on those
 * readers when that writer, one of this process, goes as a holder. Waiting for its predecessor,
 * that node is the last obstacle if it is the one node ahead, or a writer of this process that
 * held.
 */
export function writeHints(naming: ReadWriteNaming): HintsOf {
  return (queue, ownIndex, decision) => {
    if (decision.held) return {};
    const own = queue[ownIndex]!;
    const ahead = queue.slice(0, ownIndex).filter((entry) => entry.sequence !== own.sequence);
    if ('waitForAnyOf' in decision) {
      const names = decision.waitForAnyOf;
      const appears = ahead.filter((entry) => entry.kind !== naming.read && names.includes(entry.name)).map((entry) => downgradeNameOf(entry.name, naming));
      const missing = appears.filter((name): name is string => name !== null && !names.includes(name));
      return missing.length === 0 ? { reuseListing: true } : { reuseListing: true, relistIfCreated: missing };
    }
    if (!('waitFor' in decision)) return {};
    const placeTakenBy = downgradeNameOf(decision.waitFor, naming);
    const index = ahead.findIndex((entry) => entry.name === decision.waitFor);
    const before = index >= 1 ? { watchAhead: ahead[index - 1]!.name } : {};
    const between = ahead.slice(index + 1);
    if (between.length > 0 && placeTakenBy !== null && between.every((entry) => entry.kind === naming.read)) {
      return { lastObstacle: false, decideBehindIfHeld: true, ...before, relistIfCreated: [placeTakenBy] };
    }
    const lastObstacle = ahead.length === 1;
    if (placeTakenBy === null) return { lastObstacle, ...before };
    return { lastObstacle, lastObstacleIfHeld: true, ...before, relistIfCreated: [placeTakenBy] };
  };
}
