import type { Decision, OrderingRule, QueueEntry } from '@zk-recipes/core';

/**
 * The ordering rules of the read/write lock: pure functions of the sorted queue, unit-tested
 * without a server.
 *
 * Two facts shape them:
 * - Nodes carrying the SAME sequence as ours never count as "before" us. The only way two nodes
 *   share a sequence is a downgrade: the write-lock holder creates a read node named with its write
 *   node's sequence, so it sorts at the writer's place (see `downgrade.ts`).
 * - Because of that, a node CAN appear ahead of a waiting writer (the downgrade read node, at the
 *   place of the writer it waits for). So a writer never takes the engine's "last obstacle"
 *   shortcut: when its predecessor goes it lists again. A reader may: the only nodes that ever
 *   appear ahead of anyone are read nodes, which never block a reader.
 *
 * Any node whose kind is not the read kind is treated as exclusive: a reader never shares the lock
 * with a node it does not understand.
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
 * predecessor and lists again when that goes (`lastObstacle` is always false, see above).
 */
export const writeRule: OrderingRule = (queue, ownIndex): Decision => {
  const own = queue[ownIndex]!;
  const predecessor = nearestBefore(queue, ownIndex, (entry) => entry.sequence !== own.sequence);
  if (predecessor === undefined) return { held: true };
  return { held: false, waitFor: predecessor.name, lastObstacle: false };
};

function nearestBefore(
  queue: readonly QueueEntry[],
  ownIndex: number,
  counts: (entry: QueueEntry) => boolean,
): QueueEntry | undefined {
  for (let i = ownIndex - 1; i >= 0; i--) {
    const entry = queue[i]!;
    if (counts(entry)) return entry;
  }
  return undefined;
}
