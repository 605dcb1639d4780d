/**
 * What the mutexes cost at the wire, held to budgets: requests, writes and watch notifications per
 * uncontended acquire + release, and per section of a contended hand-off (docs/architecture.md,
 * "What a section may cost"). Counted by a FaultProxy in front of each session (`connectTallied`).
 * The budgets are what the code does today; lower them as the protocol gets cheaper.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { InterProcessMutex, InterProcessSemaphoreMutex } from '@zk-recipes/mutex';
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
 * One uncontended acquire + release, both mutexes (exact: the same every cycle). Today: create2 +
 * getChildren2 (the listing pipelined behind it), getChildren2 (the watch on our own node), delete;
 * the notification is our own node's deletion reaching that watch.
 */
const UNCONTENDED: CostPer = { requests: 4, writes: 2, notifications: 1 };
/**
 * Per section of 4 sessions looping acquire → release (hold 0) on one mutex, over 300 sections.
 * Measured today: 8.00 requests (create2, 3 getChildren2, 2 getData, setData, delete), 3.00 writes
 * (create2, the holder's announcement setData, delete), 2.00-2.02 notifications per release
 * (nodeDeleted, nodeDataChanged). The budgets allow +0.1 request and +0.05 write and
 * notification: the contenders' cycles in flight at the two reads of the proxies blur the average.
 */
const CONTENDED: CostPer = { requests: 8.1, writes: 3.05, notifications: 2.05 };
const CONTENDERS = 4;
const CYCLES = 20;
const SECTIONS = 300;

const root = uniqueRoot('mutex-cost');
const opened: TalliedSession[] = [];
afterAll(async () => {
  await Promise.all(opened.map((t) => t.close()));
});

async function tallied(): Promise<TalliedSession> {
  const t = await connectTallied();
  opened.push(t);
  return t;
}

describe('mutex protocol cost', () => {
  it.each([
    ['InterProcessMutex', InterProcessMutex],
    ['InterProcessSemaphoreMutex', InterProcessSemaphoreMutex],
  ] as const)('%s: an uncontended acquire + release', async (name, Lock) => {
    const t = await tallied();
    const lock = new Lock(t.session, `${root}/uncontended-${name}`);
    const cycle = async (): Promise<void> => (await lock.acquire()).release();
    await cycle(); // creates the lock's directory
    const tally = await costOfCycles(t, CYCLES, cycle);
    expect(overBudget(costPer(tally, CYCLES), UNCONTENDED), describeTally(tally)).toEqual([]);
  });

  it(`InterProcessMutex: a hand-off among ${CONTENDERS} sessions (hold 0)`, async () => {
    const contenders = [];
    for (let i = 0; i < CONTENDERS; i++) {
      const t = await tallied();
      const mutex = new InterProcessMutex(t.session, `${root}/contended`);
      contenders.push({ proxy: t.proxy, cycle: async () => (await mutex.acquire()).release() });
    }
    const { tally, perSection } = await costOfHandOffs(contenders, { warmup: 5 * CONTENDERS, sections: SECTIONS });
    expect(overBudget(perSection, CONTENDED), describeTally(tally)).toEqual([]);
  });
});
