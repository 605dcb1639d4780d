import { decideWithHints, MAX_ANY_OF_WATCHES, sortedChildren, type OrderingRule, type QueueEntry } from '@zk-recipes/core/recipe-kit';
import { describe, expect, it } from 'vitest';
import { CURATOR_NAMING, ZK_RECIPES_NAMING } from '../src/naming.js';
import { downgradeNameOf } from '../src/downgradeName.js';
import { readRule, writeRule } from '../src/rules.js';

const G = ['11111111', '22222222', '33333333', '44444444', '55555555', '66666666'];
/** A protected node name: `_c_<uuid n>-<kind><seq>`. */
function node(n: number, kind: string, seq: number): string {
  const g = G[n]!;
  return `_c_${g}-${g.slice(0, 4)}-4${g.slice(0, 3)}-8${g.slice(0, 3)}-${g}${g.slice(0, 4)}-${kind}${String(seq).padStart(10, '0')}`;
}
const R = 'read-';
const W = 'write-';
/**
 * The decision the engine acts on (the rule's outcome with its hints), after checking that the
 * pure `decide` gives that very outcome.
 */
function hinted(rule: OrderingRule) {
  return (queue: readonly QueueEntry[], ownIndex: number) => {
    const decision = decideWithHints(rule, queue, ownIndex);
    const outcome = rule.decide(queue, ownIndex);
    const { held, waitFor, waitForAnyOf } = decision as { held: boolean; waitFor?: string; waitForAnyOf?: readonly string[] };
    expect(outcome).toStrictEqual({ held, ...(waitFor === undefined ? {} : { waitFor }), ...(waitForAnyOf === undefined ? {} : { waitForAnyOf }) });
    return decision;
  };
}
const read = hinted(readRule(ZK_RECIPES_NAMING));
const write = hinted(writeRule(ZK_RECIPES_NAMING));
const curatorWrite = hinted(writeRule(CURATOR_NAMING));
/** A reader's wait for the nearest exclusive node, watching the exclusive node before it if any. */
const readerWaits = (name: string, lastObstacle: boolean, ahead?: string) => ({ held: false, waitFor: name, lastObstacle, lastObstacleIfHeld: true, ...(ahead === undefined ? {} : { watchAhead: ahead }) });
const indexOf = (queue: ReturnType<typeof sortedChildren>, name: string) => queue.findIndex((e) => e.name === name);

/** A writer's wait for a reader (or a writer it does not know how to downgrade), watching the node before it if any. */
const waitsForReader = (name: string, lastObstacle: boolean, ahead?: string) => ({ held: false, waitFor: name, lastObstacle, ...(ahead === undefined ? {} : { watchAhead: ahead }) });
/** A writer's wait for every node ahead (readers, after at most one writer at the head). */
const watchesAll = (names: string[], appears?: string[]) => ({ held: false, waitForAnyOf: names, ...(appears === undefined ? {} : { relistIfCreated: appears }) });

describe('readRule', () => {
  it('holds when only readers precede it (readers share)', () => {
    const queue = sortedChildren([node(0, R, 1), node(1, R, 2), node(2, R, 3)]);
    for (let i = 0; i < queue.length; i++) expect(read(queue, i)).toEqual({ held: true });
  });

  it('waits for the nearest preceding writer, not the first one', () => {
    const queue = sortedChildren([node(0, W, 1), node(1, R, 2), node(2, W, 3), node(3, R, 4)]);
    expect(read(queue, 3)).toEqual(readerWaits(node(2, W, 3), false, node(0, W, 1)));
    expect(read(queue, 1)).toEqual(readerWaits(node(0, W, 1), true));
  });

  it('is strictly FIFO: a reader arriving after a waiting writer queues behind it', () => {
    // r0 holds, w1 waits for r0, r2 arrives: it must not join r0.
    const queue = sortedChildren([node(0, R, 1), node(1, W, 2), node(2, R, 3)]);
    expect(write(queue, 1)).toStrictEqual(watchesAll([node(0, R, 1)]));
    expect(read(queue, 2)).toEqual(readerWaits(node(1, W, 2), true));
  });

  it('ignores writers that follow it', () => {
    const queue = sortedChildren([node(0, R, 1), node(1, W, 2)]);
    expect(read(queue, 0)).toEqual({ held: true });
  });

  it('never counts a node of its own sequence as before it (downgrade read node at the writer place)', () => {
    // The downgraded read node carries the write node's sequence and sorts before it (r < w).
    const queue = sortedChildren([node(0, W, 5), node(0, R, 5)]);
    expect(queue.map((e) => e.kind)).toEqual([R, W]);
    expect(read(queue, 0)).toEqual({ held: true });
    // Even if a same-sequence writer sorted first, it would not block the reader.
    const reversed = [queue[1]!, queue[0]!];
    expect(read(reversed, 1)).toEqual({ held: true });
  });

  it('a reader behind a downgraded writer waits for the write node; once it is gone it shares', () => {
    const before = sortedChildren([node(0, R, 5), node(0, W, 5), node(1, R, 6), node(2, W, 7), node(3, R, 8)]);
    expect(read(before, 2)).toEqual(readerWaits(node(0, W, 5), true));
    const after = sortedChildren([node(0, R, 5), node(1, R, 6), node(2, W, 7), node(3, R, 8)]);
    expect(read(after, 1)).toEqual({ held: true });
    expect(write(after, 2)).toStrictEqual(watchesAll([node(0, R, 5), node(1, R, 6)]));
    expect(read(after, 3)).toEqual(readerWaits(node(2, W, 7), true));
  });

  it('treats nodes it does not understand as exclusive', () => {
    const queue = sortedChildren([node(0, 'lock-', 1), node(1, R, 2)]);
    expect(read(queue, 1)).toEqual({ held: false, waitFor: node(0, 'lock-', 1), lastObstacle: true, lastObstacleIfHeld: true });
  });

  it("works with Curator's names", () => {
    const curatorRead = hinted(readRule(CURATOR_NAMING));
    const queue = sortedChildren([node(0, '__READ__', 1), node(1, '__WRIT__', 2), node(2, '__READ__', 3)]);
    expect(curatorRead(queue, 0)).toEqual({ held: true });
    expect(curatorWrite(queue, 1)).toStrictEqual(watchesAll([node(0, '__READ__', 1)]));
    expect(curatorRead(queue, 2)).toEqual(readerWaits(node(1, '__WRIT__', 2), true));
    expect(ZK_RECIPES_NAMING).toEqual({ read: 'read-', write: 'write-' });
  });
});

describe('writeRule', () => {
  /**
   * A writer's wait for a writer: one of ours that held is the last obstacle too, unless its
   * downgrade read node (the write node's name with the read kind) appears.
   */
  const waits = (name: string, lastObstacle: boolean, ahead?: string) => ({
    held: false,
    waitFor: name,
    lastObstacle,
    lastObstacleIfHeld: true,
    ...(ahead === undefined ? {} : { watchAhead: ahead }),
    relistIfCreated: name.replace(/-write-(\d{10})$/, '-read-$1').replace(/-__WRIT__(\d{10})$/, '-__READ__$1'),
  });

  it('holds only when first', () => {
    const queue = sortedChildren([node(0, W, 1), node(1, W, 2), node(2, R, 3)]);
    expect(write(queue, 0)).toEqual({ held: true });
  });

  it('behind readers only, it watches every one of them: whichever goes last leaves it the lock', () => {
    const queue = sortedChildren([node(0, R, 1), node(1, R, 2), node(2, R, 3), node(3, W, 4), node(4, R, 5)]);
    expect(write(queue, 3)).toStrictEqual(watchesAll([node(0, R, 1), node(1, R, 2), node(2, R, 3)]));
    expect(write(sortedChildren([node(2, R, 3), node(3, W, 4)]), 1)).toStrictEqual(watchesAll([node(2, R, 3)]));
  });

  it('behind a writer at the head and the readers queued after it, it watches them all and watches for that writer\'s downgrade node', () => {
    const queue = sortedChildren([node(0, W, 1), node(1, R, 2), node(2, R, 3), node(3, W, 4)]);
    expect(write(queue, 3)).toStrictEqual(watchesAll([node(0, W, 1), node(1, R, 2), node(2, R, 3)], [node(0, R, 1)]));
    // Not knowing how a foreign writer downgrades, it has nothing to watch for: a Curator
    // downgrade takes a new sequence, behind us.
    const foreign = sortedChildren(['write-0000000001', node(1, R, 2), node(3, W, 4)]);
    expect(write(foreign, 2)).toStrictEqual(watchesAll(['write-0000000001', node(1, R, 2)]));
  });

  it('behind readers queued after a writer that is not at the head, it waits for that writer, to decide on the readers when it goes having held', () => {
    const queue = sortedChildren([node(0, R, 1), node(1, W, 2), node(2, R, 3), node(4, R, 4), node(3, W, 5)]);
    expect(write(queue, 4)).toStrictEqual({
      held: false,
      waitFor: node(1, W, 2),
      lastObstacle: false,
      decideBehindIfHeld: true,
      watchAhead: node(0, R, 1),
      relistIfCreated: node(1, R, 2),
    });
    // Once that writer has gone as a holder, the readers behind it are all that is ahead.
    expect(write(queue.slice(2), 2)).toStrictEqual(watchesAll([node(2, R, 3), node(4, R, 4)]));
    // A foreign writer is never one of ours that held, and a downgraded one has its read node there already.
    const foreign = sortedChildren([node(0, R, 1), 'write-0000000002', node(2, R, 3), node(3, W, 5)]);
    expect(write(foreign, 3)).toStrictEqual(waitsForReader(node(2, R, 3), false, 'write-0000000002'));
    const downgraded = sortedChildren([node(0, R, 1), node(1, W, 2), node(1, R, 2), node(2, R, 3), node(3, W, 5)]);
    expect(write(downgraded, 4)).toStrictEqual(waitsForReader(node(2, R, 3), false, node(1, W, 2)));
  });

  it('waits for its immediate predecessor behind a writer (alone or not at the head), or too many readers', () => {
    const queue = sortedChildren([node(0, R, 1), node(1, R, 2), node(2, W, 3), node(3, W, 4)]);
    expect(write(queue, 3)).toEqual(waits(node(2, W, 3), false, node(1, R, 2)));
    const single = sortedChildren([node(0, W, 1), node(1, W, 2)]);
    expect(write(single, 1)).toEqual(waits(node(0, W, 1), true));
    const many = sortedChildren([...Array.from({ length: MAX_ANY_OF_WATCHES + 1 }, (_, i) => `read-${String(i).padStart(10, '0')}`), node(1, W, 9999)]);
    expect(write(many, MAX_ANY_OF_WATCHES + 1)).toStrictEqual(
      waitsForReader(`read-${String(MAX_ANY_OF_WATCHES).padStart(10, '0')}`, false, `read-${String(MAX_ANY_OF_WATCHES - 1).padStart(10, '0')}`),
    );
    const atLimit = many.slice(1);
    expect(write(atLimit, MAX_ANY_OF_WATCHES)).toMatchObject({ held: false, waitForAnyOf: atLimit.slice(0, -1).map((e) => e.name) });
  });

  it('CURATOR-621: behind a downgraded writer it waits for the read node at its place, never as the last obstacle', () => {
    // The downgrade read node sorts before the write node of the same sequence ("read-" < "write-").
    const downgraded = sortedChildren([node(1, W, 6), node(0, W, 5), node(0, R, 5)]);
    const b = indexOf(downgraded, node(1, W, 6));
    // The read node as well as the write node, already there: nothing to watch for.
    expect(write(downgraded, b)).toStrictEqual(watchesAll([node(0, R, 5), node(0, W, 5)]));
    const writeReleased = sortedChildren([node(1, W, 6), node(0, R, 5)]);
    expect(write(writeReleased, indexOf(writeReleased, node(1, W, 6)))).toStrictEqual(watchesAll([node(0, R, 5)]));
    const readReleasedFirst = sortedChildren([node(1, W, 6), node(0, W, 5)]);
    expect(write(readReleasedFirst, indexOf(readReleasedFirst, node(1, W, 6)))).toEqual(waits(node(0, W, 5), true));
    expect(write(sortedChildren([node(1, W, 6)]), 0)).toEqual({ held: true });
  });

  it('waits for the downgrade read node even when its name sorts after the write node (fresh GUID)', () => {
    // node(5, ...) has the GUID 66666666-..., which sorts after 11111111-...: read after write.
    const downgraded = sortedChildren([node(1, W, 6), node(0, W, 5), node(5, R, 5)]);
    expect(downgraded.map((e) => e.kind)).toEqual([W, R, W]);
    expect(write(downgraded, 2)).toStrictEqual(watchesAll([node(0, W, 5), node(5, R, 5)], [node(0, R, 5)]));
  });

  it("with Curator's names too (__READ__ sorts before __WRIT__)", () => {
    const downgraded = sortedChildren([node(1, '__WRIT__', 6), node(0, '__WRIT__', 5), node(0, '__READ__', 5)]);
    expect(curatorWrite(downgraded, 2)).toStrictEqual(watchesAll([node(0, '__READ__', 5), node(0, '__WRIT__', 5)]));
  });

  it("names the downgrade read node it watches for as the downgrade creates it: the write node's name with the read kind", () => {
    expect(downgradeNameOf(node(0, W, 5), ZK_RECIPES_NAMING)).toBe(node(0, R, 5));
    expect(downgradeNameOf(node(0, '__WRIT__', 5), CURATOR_NAMING)).toBe(node(0, '__READ__', 5));
    // Not a write node this library names: never downgraded by us, so no shortcut behind it.
    expect(downgradeNameOf('write-0000000005', ZK_RECIPES_NAMING)).toBeNull();
    expect(downgradeNameOf(node(0, R, 5), ZK_RECIPES_NAMING)).toBeNull();
    const foreign = sortedChildren(['write-0000000001', node(1, W, 2)]);
    expect(write(foreign, 1)).toEqual(waitsForReader('write-0000000001', true));
  });

  it("the holder's own downgrade read node (same sequence) does not count as before it", () => {
    const queue = sortedChildren([node(0, W, 5), node(0, R, 5), node(1, W, 6)]);
    expect(write(queue, indexOf(queue, node(0, W, 5)))).toEqual({ held: true });
  });
});
