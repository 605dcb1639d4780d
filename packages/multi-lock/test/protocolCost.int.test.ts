/**
 * What a multi-lock costs at the wire, held to a budget: requests, writes and watch notifications
 * per uncontended acquire + release of two mutexes (docs/architecture.md, "What a section may
 * cost"). Counted by a FaultProxy in front of the session (`connectTallied`). The budget is what
 * the code does today; lower it as the protocol gets cheaper.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { InterProcessMultiLock } from '@zk-recipes/multi-lock';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { connectTallied, costOfCycles, costPer, describeTally, overBudget, uniqueRoot, type CostPer, type TalliedSession } from '@zk-recipes/testing';

/**
 * One uncontended acquire + release of a multi-lock of two mutexes (exact: the same every cycle):
 * twice a mutex's cycle (create2 + getChildren2 pipelined, getChildren2 for the watch on our own
 * node, delete) and its own-node deletion notification. The members are acquired one after the
 * other, so the first holds across a turn and sets its watch (engine/ownNode.ts,
 * `OwnNodeWatch.held`); the second may be released before it sets its own.
 */
const UNCONTENDED_TWO_MUTEXES: CostPer = { requests: 8, writes: 4, notifications: 2 };
const CYCLES = 20;

const root = uniqueRoot('multi-lock-cost');
let tallied: TalliedSession | undefined;
afterAll(async () => {
  await tallied?.close();
});

describe('multi-lock protocol cost', () => {
  it('an uncontended acquire + release of two mutexes', async () => {
    const t = (tallied = await connectTallied());
    const multi = new InterProcessMultiLock([new InterProcessMutex(t.session, `${root}/a`), new InterProcessMutex(t.session, `${root}/b`)]);
    const cycle = async (): Promise<void> => (await multi.acquire()).release();
    await cycle(); // creates the locks' directories
    const tally = await costOfCycles(t, CYCLES, cycle);
    expect(overBudget(costPer(tally, CYCLES), UNCONTENDED_TWO_MUTEXES), describeTally(tally)).toEqual([]);
  });
});
