import { MAX_ANY_OF_WATCHES, type Decision, type OrderingRule, type QueueEntry } from '@zk-recipes/core/recipe-kit';
import { downgradeNameOf } from './downgradeName.js';
import { readHints, writeHints } from './hints.js';
import type { ReadWriteNaming } from './naming.js';

/*
 * The ordering rules of the read/write lock: pure functions of the sorted queue, unit-tested
 * without a server. The shortcuts the engine may take beside them are in `hints.ts`.
 *
 * - Nodes carrying the SAME sequence as ours never count as "before" us. Two nodes share a
 *   sequence only after a downgrade: the write-lock holder creates a read node named with its
 *   write node's sequence, which sorts at the writer's place (see `downgrade.ts`).
 * - Any node whose kind is not the read kind is treated as exclusive: a reader never shares the
 *   lock with a node it does not understand.
 * - A writer behind a group of readers that hold (or will, as soon as the one writer at the head
 *   goes) waits for any of them, not only its immediate predecessor: readers release in any
 *   order, and each going wakes this writer alone.
 */

/** Reader: holds when no exclusive node precedes it; else waits for the nearest preceding one. */
export function readRule(naming: ReadWriteNaming): OrderingRule {
  const decide = (queue: readonly QueueEntry[], ownIndex: number): Decision => {
    const own = queue[ownIndex]!;
    for (let i = ownIndex - 1; i >= 0; i--) {
      const entry = queue[i]!;
      if (entry.kind !== naming.read && entry.sequence !== own.sequence) return { held: false, waitFor: entry.name };
    }
    return { held: true };
  };
  return { decide, hints: readHints(naming) };
}

/**
 * Writer: holds when it is first (ignoring nodes of its own sequence); else, behind readers, see
 * `watchAllAhead` and `passWriterAhead`; else waits for its immediate predecessor.
 * When a downgrade put a read node next to that predecessor (same sequence), it waits for the
 * read node, whatever the two names' order.
 */
export function writeRule(naming: ReadWriteNaming): OrderingRule {
  const decide = (queue: readonly QueueEntry[], ownIndex: number): Decision => {
    const own = queue[ownIndex]!;
    let predecessor: QueueEntry | undefined;
    for (let i = 0; i < ownIndex; i++) {
      const entry = queue[i]!;
      if (entry.sequence === own.sequence) continue;
      const sameGroup = predecessor !== undefined && entry.sequence === predecessor.sequence;
      if (!sameGroup || entry.kind === naming.read) predecessor = entry;
    }
    if (predecessor === undefined) return { held: true };
    return watchAllAhead(queue, ownIndex, naming) ?? passWriterAhead(queue, ownIndex, naming) ?? { held: false, waitFor: predecessor.name };
  };
  return { decide, hints: writeHints(naming) };
}

/**
 * A writer whose way is barred only by read nodes, after at most one writer at the head of the
 * queue (with its downgrade read node, if any), waits for any of them. `undefined` when the queue
 * ahead is of another shape or too long: the writer then waits for one node.
 */
function watchAllAhead(queue: readonly QueueEntry[], ownIndex: number, naming: ReadWriteNaming): Decision | undefined {
  const ownSequence = queue[ownIndex]!.sequence;
  const names: string[] = [];
  let headSequence: number | undefined;
  let readers = 0;
  for (let i = 0; i < ownIndex; i++) {
    const entry = queue[i]!;
    if (entry.sequence === ownSequence) continue;
    headSequence ??= entry.sequence;
    if (entry.kind === naming.read) readers++;
    else if (entry.sequence !== headSequence) return undefined; // a writer that is not at the head
    names.push(entry.name);
  }
  return readers === 0 || names.length > MAX_ANY_OF_WATCHES ? undefined : { held: false, waitForAnyOf: names };
}

/**
 * A writer with readers right ahead of it, behind a writer of ours that is not at the head yet
 * and has no downgrade read node, waits for that writer: when it goes, the readers behind it are
 * what is left ahead (see `decideBehindIfHeld` in `hints.ts`). `undefined` otherwise.
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
    return { held: false, waitFor: entry.name };
  }
  return undefined;
}
