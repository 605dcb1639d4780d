/**
 * What the read/write lock costs at the wire, held to budgets: requests, writes and watch
 * notifications per uncontended acquire + release, and per section when readers and writers
 * contend (docs/architecture.md, "What a section may cost"). Counted by a FaultProxy in front of
 * each session (`connectTallied`). The budgets are what the code does today; lower them as the
 * protocol gets cheaper.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import {
  connectTallied,
  costOfCycles,
  costOfHandOffs,
  costPer,
  describeTally,
  overBudget,
  uniqueRoot,
  type CostPer,
  type TalliedSession,
  type WireTally,
} from '@zk-recipes/testing';

/**
 * One uncontended acquire + release, read lock or write lock, released at once (exact: the same
 * every cycle): create2 + getChildren2 pipelined, delete (a holder granted on a fresh listing sets
 * the watch on its own node a turn later: one released before then sends none).
 */
const UNCONTENDED: CostPer = { requests: 3, writes: 2, notifications: 0 };
/**
 * One uncontended downgrade cycle: acquire the write lock, acquire the read lock (the downgrade),
 * release both (exact). The write lock's four requests as above; the downgrade's multi (a check
 * that the write node is there and the read node's create, one transaction), an exists (the read
 * node's czxid, its fencing token: the multi's create returns no stat) and a getChildren2 (the
 * deletion watch on the read node); the read node's delete. Writes: create2, multi, two deletes.
 * Notifications: each node's deletion reaching its own watch.
 */
const UNCONTENDED_DOWNGRADE: CostPer = { requests: 8, writes: 4, notifications: 2 };
/**
 * Per section (read or write) of 1 writer and 3 readers, each its own session, looping acquire →
 * release (hold 0) over 300 sections: readers queue behind the writer and the writer behind
 * readers. Measured (eight runs): 5.01-5.12 requests (create2 + the listing pipelined behind it,
 * the deletion watch on our own node, 1.0-1.1 more getChildren2: a reader's deletion watch on the
 * writer ahead, a writer's on each reader ahead of it; delete), 1.99-2.01 writes (the create and
 * the delete: nothing else is written), 1.23-1.32 notifications per section (each deletion reaches
 * the waiters that watch that node, and its holder's own watch). How many readers share a turn
 * follows scheduling, so the budgets allow ~5% over the highest (writes: cycles in flight at the
 * two reads of the proxies).
 */
const READERS_AND_A_WRITER: CostPer = { requests: 5.4, writes: 2.02, notifications: 1.4 };
/**
 * Per section of 3 writers and 1 reader, likewise. Measured (eight runs): 8.62-8.71 requests
 * (create2 + the listing pipelined behind it, the deletion watch on our own node, 3.06-3.10 more
 * getChildren2: the deletion watches on the node we wait for and on the node before it, and the
 * listing made when that one goes; 0.77-0.80 exists and 0.78-0.82 removeWatches: a writer waiting
 * for a writer watches for the creation of that writer's downgrade read node, and removes that
 * watch when its wait ends; delete), 2.00 writes (the create and the delete), 2.47-2.61
 * notifications per section (a writer's deletion reaches the waiter behind it, the waiter two
 * behind it, and its own watch). Budgets: ~5% over the highest (scheduling decides how often a
 * writer waits for a writer), writes +0.02 (cycles in flight at the two reads of the proxies).
 */
const WRITERS_AND_A_READER: CostPer = { requests: 9.15, writes: 2.02, notifications: 2.75 };
/** Requests that write nothing. */
const READS = new Set(['getChildren2', 'getData', 'exists', 'removeWatches']);
const CYCLES = 20;

/** The requests of `tally` that write, by name, sorted. */
const writesOf = (tally: WireTally): string[] => Object.keys(tally.byOp).filter((op) => !READS.has(op)).sort();
const SECTIONS = 300;

const root = uniqueRoot('rw-cost');
const opened: TalliedSession[] = [];
afterAll(async () => {
  await Promise.all(opened.map((t) => t.close()));
});

async function tallied(): Promise<TalliedSession> {
  const t = await connectTallied();
  opened.push(t);
  return t;
}

describe('read/write lock protocol cost', () => {
  it.each(['read', 'write'] as const)('an uncontended %s lock acquire + release', async (kind) => {
    const t = await tallied();
    const rw = new InterProcessReadWriteLock(t.session, `${root}/uncontended-${kind}`);
    const lock = kind === 'read' ? rw.readLock() : rw.writeLock();
    const cycle = async (): Promise<void> => (await lock.acquire()).release();
    await cycle(); // creates the lock's directory
    const tally = await costOfCycles(t, CYCLES, cycle);
    expect(overBudget(costPer(tally, CYCLES), UNCONTENDED), describeTally(tally)).toEqual([]);
    expect(writesOf(tally)).toEqual(['create2', 'delete']);
  });

  it('an uncontended downgrade: write lock, read lock, both released', async () => {
    const t = await tallied();
    const rw = new InterProcessReadWriteLock(t.session, `${root}/uncontended-downgrade`);
    const cycle = async (): Promise<void> => {
      const write = await rw.writeLock().acquire();
      const read = await rw.readLock().acquire();
      await write.release();
      await read.release();
    };
    await cycle(); // creates the lock's directory
    const tally = await costOfCycles(t, CYCLES, cycle);
    expect(overBudget(costPer(tally, CYCLES), UNCONTENDED_DOWNGRADE), describeTally(tally)).toEqual([]);
    // The downgrade's one transaction besides the creates and deletes.
    expect(writesOf(tally)).toEqual(['create2', 'delete', 'multi']);
  });

  it.each([
    ['1 writer and 3 readers', 1, 3, READERS_AND_A_WRITER],
    ['3 writers and 1 reader', 3, 1, WRITERS_AND_A_READER],
  ] as const)('a section among %s (hold 0)', async (name, writers, readers, budget) => {
    const contenders = [];
    for (let i = 0; i < writers + readers; i++) {
      const t = await tallied();
      const rw = new InterProcessReadWriteLock(t.session, `${root}/contended-${writers}w${readers}r`);
      const lock = i < writers ? rw.writeLock() : rw.readLock();
      contenders.push({ proxy: t.proxy, cycle: async () => (await lock.acquire()).release() });
    }
    const { tally, perSection } = await costOfHandOffs(contenders, { warmup: 20, sections: SECTIONS });
    expect(overBudget(perSection, budget), describeTally(tally)).toEqual([]);
    // The only writes are the creates and the deletes: no holder writes its node.
    expect(writesOf(tally)).toEqual(['create2', 'delete']);
  });
});
