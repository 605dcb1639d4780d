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
} from '@zk-recipes/testing';

/**
 * One uncontended acquire + release, read lock or write lock, released at once (exact: the same
 * every cycle): create2 + getChildren2 pipelined, delete (a holder granted on a fresh listing sets
 * the watch on its own node a turn later: one released before then sends none).
 */
const UNCONTENDED: CostPer = { requests: 3, writes: 2, notifications: 0 };
/**
 * Per section (read or write) of 1 writer and 3 readers, each its own session, looping acquire →
 * release (hold 0) over 300 sections: readers queue behind the writer and the writer behind
 * readers. Measured today (eight runs): 5.58-6.00 requests, 2.22-2.25 writes, 1.35-1.50
 * notifications per release. How many readers share a turn follows scheduling, so the budgets
 * allow ~5% over the highest.
 */
const READERS_AND_A_WRITER: CostPer = { requests: 6.3, writes: 2.35, notifications: 1.6 };
/**
 * Per section of 3 writers and 1 reader, likewise. Measured today (eight runs): 9.48-9.51
 * requests (create2, 3 getChildren2, 2.25 getData, 0.75 exists, 0.75 removeWatches, 0.75 setData,
 * delete), 2.75 writes, 2.06-2.10 notifications. Budgets: +0.1 request and +0.05 write (cycles in
 * flight at the two reads of the proxies); notifications follow scheduling: ~5% over the highest.
 */
const WRITERS_AND_A_READER: CostPer = { requests: 9.6, writes: 2.8, notifications: 2.2 };
const CYCLES = 20;
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
  });
});
