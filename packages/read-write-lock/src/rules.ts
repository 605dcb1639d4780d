import { MAX_ANY_OF_WATCHES, type Decision, type OrderingRule, type QueueEntry } from '@zk-recipes/core';
import { downgradeNameOf } from './downgradeName.js';
import type { ReadWriteNaming } from './naming.js';

/**
 * The ordering rules of the read/write lock: pure functions of the sorted queue, unit-tested
 * without a server.
 *
 * Four facts shape them:
 * - Nodes carrying the SAME sequence as ours never count as "before" us. The only way two nodes
 *   share a sequence is a downgrade: the write-lock holder creates a read node named with its write
 *   node's sequence, so it sorts at the writer's place (see `downgrade.ts`).
 * - So a node CAN appear ahead of a waiting writer: the downgrade read node, next to the write node
 *   the writer waits for. Its name is known in advance (`downgradeNameOf`: the write node's name
 *   with the read kind), so a writer waiting on a write node watches for that name's creation too
 *   (`relistIfCreated`) and lists again if it appears. The creation precedes the write node's
 *   going in the server's order, so the writer never takes the lock while the read node stands.
 * - Writers announce when they are granted the lock after waiting (see the core's
 *   `exclusiveRule`). A writer is first when it holds, so nothing but its own downgrade read node
 *   can be ahead of it: when an announced writer goes, the writer behind it holds the lock, and so
 *   does a reader whose nearest writer it was, without listing again (`lastObstacleIfHeld`).
 *   Readers do not announce: a read node's going proves nothing about the nodes ahead of it.
 * - Readers may always take the last-obstacle shortcuts: only read nodes ever appear ahead of
 *   anyone, and read nodes never block a reader.
 * - A writer behind a group of readers that hold (or will hold as soon as the one writer at the
 *   head goes) watches all of them, not only its immediate predecessor: readers release in any
 *   order, and the textbook writer lists again each time its predecessor goes, one round trip
 *   more on every reader-to-writer hand-off (two or three when the readers finish out of order).
 *   Each going still wakes one process, this writer, which decides on the queue it has. Behind a
 *   writer that is not at the head yet, it first waits for that writer, which announces: when it
 *   goes, the readers behind it are what is left ahead, and are watched at once, while they hold.
 *
 * Any node whose kind is not the read kind is treated as exclusive: a reader never shares the lock
 * with a node it does not understand. Only write nodes this library names are taken to announce.
 */

/** Reader: holds when no exclusive node precedes it; else waits for the nearest preceding one. */
export function readRule(naming: ReadWriteNaming): OrderingRule {
  return (queue, ownIndex): Decision => {
    const own = queue[ownIndex]!;
    let nearest = -1;
    let obstacles = 0;
    for (let i = 0; i < ownIndex; i++) {
      const entry = queue[i]!;
      if (entry.kind === naming.read || entry.sequence === own.sequence) continue;
      obstacles++;
      nearest = i;
    }
    if (nearest < 0) return { held: true };
    const obstacle = queue[nearest]!;
    const lastObstacle = obstacles === 1;
    if (downgradeNameOf(obstacle.name, naming) === null) return { held: false, waitFor: obstacle.name, lastObstacle };
    return { held: false, waitFor: obstacle.name, lastObstacle, lastObstacleIfHeld: true, watchedAnnounces: true };
  };
}

/**
 * Writer: holds when it is first (ignoring nodes of its own sequence); else, behind readers, see
 * {@link watchAllAhead}; else waits for its immediate predecessor. When a downgrade put a read node
 * next to that predecessor (same sequence), it waits for the read node, whatever the two names'
 * order. The predecessor is the last obstacle only when it is the one node ahead; a writer
 * predecessor that announced is one as well.
 */
export function writeRule(naming: ReadWriteNaming): OrderingRule {
  return (queue, ownIndex): Decision => {
    const own = queue[ownIndex]!;
    let ahead = 0;
    let predecessor: QueueEntry | undefined;
    for (let i = 0; i < ownIndex; i++) {
      const entry = queue[i]!;
      if (entry.sequence === own.sequence) continue;
      ahead++;
      const sameGroup = predecessor !== undefined && entry.sequence === predecessor.sequence;
      if (!sameGroup || entry.kind === naming.read) predecessor = entry;
    }
    if (predecessor === undefined) return { held: true, announceHolding: true };
    const anyOf = watchAllAhead(queue, ownIndex, naming) ?? passWriterAhead(queue, ownIndex, naming);
    if (anyOf !== undefined) return anyOf;
    const lastObstacle = ahead === 1;
    const placeTakenBy = downgradeNameOf(predecessor.name, naming);
    if (placeTakenBy === null) return { held: false, waitFor: predecessor.name, lastObstacle, announceHolding: true };
    return {
      held: false,
      waitFor: predecessor.name,
      lastObstacle,
      lastObstacleIfHeld: true,
      announceHolding: true,
      watchedAnnounces: true,
      relistIfCreated: placeTakenBy,
    };
  };
}

/**
 * A writer whose way is barred only by read nodes, after at most one writer at the head of the
 * queue (with its downgrade read node, if any), waits for any of them to go and decides again on
 * the queue it has: when the last goes, it holds without listing. That writer's downgrade read
 * node is the one node that could still appear ahead, so its creation is watched for (see
 * `relistIfCreated`). `undefined` when the queue ahead is of another shape or too long: the writer
 * then waits for its immediate predecessor. A single writer ahead is left to that wait too: it
 * announces and hands over locally, which a watch on it alone cannot use.
 */
function watchAllAhead(queue: readonly QueueEntry[], ownIndex: number, naming: ReadWriteNaming): Decision | undefined {
  const ownSequence = queue[ownIndex]!.sequence;
  const names: string[] = [];
  const appears: string[] = [];
  let headSequence: number | undefined;
  let readers = 0;
  for (let i = 0; i < ownIndex; i++) {
    const entry = queue[i]!;
    if (entry.sequence === ownSequence) continue;
    headSequence ??= entry.sequence;
    if (entry.kind === naming.read) {
      readers++;
    } else {
      if (entry.sequence !== headSequence) return undefined; // a writer that is not at the head
      const downgrade = downgradeNameOf(entry.name, naming);
      if (downgrade !== null) appears.push(downgrade);
    }
    names.push(entry.name);
  }
  if (readers === 0 || names.length > MAX_ANY_OF_WATCHES) return undefined;
  const missing = appears.filter((name) => !names.includes(name));
  return missing.length === 0 ? { held: false, waitForAnyOf: names } : { held: false, waitForAnyOf: names, relistIfCreated: missing };
}

/**
 * A writer with readers right ahead of it, behind a writer of ours that is not at the head yet,
 * waits for that writer: it announces when it holds, so when it goes having held, only the readers
 * behind it are left ahead (`decideBehindIfHeld`) and {@link watchAllAhead} applies, without a
 * listing, while those readers hold. `undefined` when the node ahead of those readers is not a
 * write node of ours, or its downgrade node is already there.
 */
function passWriterAhead(queue: readonly QueueEntry[], ownIndex: number, naming: ReadWriteNaming): Decision | undefined {
  const ownSequence = queue[ownIndex]!.sequence;
  let readers = 0;
  for (let i = ownIndex - 1; i >= 0; i--) {
    const entry = queue[i]!;
    if (entry.sequence === ownSequence) continue;
    if (entry.kind === naming.read) {
      readers++;
      continue;
    }
    const downgrade = downgradeNameOf(entry.name, naming);
    if (readers === 0 || downgrade === null || queue.some((other) => other.name === downgrade)) return undefined;
    return {
      held: false,
      waitFor: entry.name,
      lastObstacle: false,
      decideBehindIfHeld: true,
      announceHolding: true,
      watchedAnnounces: true,
      relistIfCreated: downgrade,
    };
  }
  return undefined;
}
