import type { Decision, OrderingRule, QueueEntry } from '@zk-recipes/core';

/**
 * The ordering rules of the read/write lock: pure functions of the sorted queue, unit-tested
 * without a server.
 *
 * Three facts shape them:
 * - Nodes carrying the SAME sequence as ours never count as "before" us. The only way two nodes
 *   share a sequence is a downgrade: the write-lock holder creates a read node named with its write
 *   node's sequence, so it sorts at the writer's place (see `downgrade.ts`).
 * - So a node CAN appear ahead of a waiting writer: the downgrade read node, next to the write node
 *   the writer waits for. The engine's shortcut ("my predecessor was the last obstacle, so when it
 *   goes I hold the lock without listing again") is still safe for writers because a downgrade
 *   touches the write node's data right after creating the read node: a writer waiting on that
 *   write node wakes up and lists again. A writer that set its watch after the touch must still
 *   see the read node: `confirmAfterWatch` (asked only with the shortcut: a writer with more than one
 *   node ahead lists again anyway) lists once more behind the watch, and the rule then
 *   names a different node to wait for (the read node of the predecessor's sequence), so the engine
 *   decides again. Both steps are off the hand-off path: a plain hand-off costs no listing.
 * - Readers may always take the shortcut: only read nodes ever appear ahead of anyone, and read
 *   nodes never block a reader.
 *
 * Any node whose kind is not the read kind is treated as exclusive: a reader never shares the lock
 * with a node it does not understand. Writers deliberately do not set `lastObstacleIfHeld`: a
 * write holder that goes may leave its downgrade read node behind.
 */

/** Reader: holds when no exclusive node precedes it; else waits for the nearest preceding one. */
export function readRule(readKind: string): OrderingRule {
  return (queue, ownIndex): Decision => {
    const own = queue[ownIndex]!;
    let nearest = -1;
    let obstacles = 0;
    for (let i = 0; i < ownIndex; i++) {
      const entry = queue[i]!;
      if (entry.kind === readKind || entry.sequence === own.sequence) continue;
      obstacles++;
      nearest = i;
    }
    if (nearest < 0) return { held: true };
    return { held: false, waitFor: queue[nearest]!.name, lastObstacle: obstacles === 1 };
  };
}

/**
 * Writer: holds when it is first (ignoring nodes of its own sequence); else waits for its immediate
 * predecessor. When a downgrade put a read node next to that predecessor (same sequence), it waits
 * for the read node, whatever the two names' order: a decision that names a different node than
 * the one the writer watched is what makes the engine decide again. The predecessor is the last
 * obstacle only when it is the one node ahead.
 */
export function writeRule(readKind: string): OrderingRule {
  return (queue, ownIndex): Decision => {
    const own = queue[ownIndex]!;
    let ahead = 0;
    let predecessor: QueueEntry | undefined;
    for (let i = 0; i < ownIndex; i++) {
      const entry = queue[i]!;
      if (entry.sequence === own.sequence) continue;
      ahead++;
      const sameGroup = predecessor !== undefined && entry.sequence === predecessor.sequence;
      if (!sameGroup || entry.kind === readKind) predecessor = entry;
    }
    if (predecessor === undefined) return { held: true };
    // Only a last obstacle's wait ends without listing again, so only it needs the confirmation.
    if (ahead === 1) return { held: false, waitFor: predecessor.name, lastObstacle: true, confirmAfterWatch: true };
    return { held: false, waitFor: predecessor.name, lastObstacle: false };
  };
}
