/**
 * What the mutexes cost at the wire, held to budgets: requests, writes and watch notifications per
 * uncontended acquire + release, and per section of a contended hand-off (docs/architecture.md,
 * "What a section may cost"). Counted by a FaultProxy in front of each session (`connectTallied`).
 * The budgets are what the code does today; lower them as the protocol gets cheaper.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { InterProcessMutex, InterProcessSemaphoreMutex, MutexSet } from '@zk-recipes/mutex';
import {
  connectTallied,
  costOfCycles,
  costOfHandOffs,
  costPer,
  describeTally,
  overBudget,
  uniqueRoot,
  ZK_OPCODES,
  type CostPer,
  type TalliedSession,
} from '@zk-recipes/testing';
import { HELD_WATCH_DELAY_MS } from '../../core/src/engine/ownNode.js';
import { HELD_WATCH_MAY_BE_SENT_AFTER_MS } from '../../core/test/support/heldWatchDue.js';

/**
 * One uncontended acquire + release, both mutexes (exact: the same every cycle): create2 +
 * getChildren2 (the listing pipelined behind it), delete, whether released at once or held a few
 * milliseconds as a per-entity lock is. The watch on our own node is set only once someone looks at
 * the holding, or `HELD_WATCH_DELAY_MS` after a grant on a fresh listing, and a holder that
 * releases before then sends none (engine/ownNode.ts, `OwnNodeWatch.held`): no notification either.
 */
const UNCONTENDED: CostPer = { requests: 3, writes: 2, notifications: 0 };
/** Held this long: a short section, as a per-entity lock's (shorter than `HELD_WATCH_DELAY_MS`). */
const SHORT_HOLD_MS = 2;
/**
 * Per section of 4 sessions looping acquire → release (hold 0) on one mutex, over 300 sections
 * (docs/architecture.md, "The node two ahead"). Measured: 7.00 requests (create2 + the listing
 * pipelined behind it; deletion-only watches, each a getChildren2, on our own node, the
 * predecessor and the node two ahead; the listing when the node two ahead goes; delete), 2.00
 * writes (the create and the delete: nothing else is ever written), 2.6 notifications per release
 * (the deletion reaches the predecessor's waiter, the waiter two behind it, and the holder's own
 * watch). The budgets allow +0.05 request, +0.02 write and +0.1 notification: the contenders'
 * cycles in flight at the two reads of the proxies blur the average.
 */
const CONTENDED: CostPer = { requests: 7.05, writes: 2.02, notifications: 2.7 };
const CONTENDERS = 4;
/** Requests that write nothing. */
const READS = new Set(['getChildren2', 'getData', 'exists', 'removeWatches']);
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

  it.each([
    ['InterProcessMutex', InterProcessMutex],
    ['InterProcessSemaphoreMutex', InterProcessSemaphoreMutex],
  ] as const)(`%s: an uncontended section held ${SHORT_HOLD_MS} ms, its handle never looked at`, async (name, Lock) => {
    const t = await tallied();
    const lock = new Lock(t.session, `${root}/short-${name}`);
    // A busy machine may run the section's 2 ms timer after the library's 10 ms one: such a cycle
    // held past the delay, and its watch (a request, and the notification of our own delete) is
    // due. Counted, not guessed: a cycle released sooner after its grant cannot have sent one.
    let late = 0;
    const cycle = async (): Promise<void> => {
      const handle = await lock.acquire();
      await new Promise((resolve) => setTimeout(resolve, SHORT_HOLD_MS)); // the section's work
      if (performance.now() - handle.grantedAt >= HELD_WATCH_MAY_BE_SENT_AFTER_MS) late++;
      await handle.release();
    };
    await cycle(); // creates the lock's directory
    late = 0;
    const tally = await costOfCycles(t, CYCLES, cycle);
    const budget = { ...UNCONTENDED, requests: UNCONTENDED.requests + late / CYCLES, notifications: UNCONTENDED.notifications + late / CYCLES };
    expect(overBudget(costPer(tally, CYCLES), budget), `${describeTally(tally)}; ${late} of ${CYCLES} cycles released ${HELD_WATCH_MAY_BE_SENT_AFTER_MS} ms or more after the grant (a slow machine), their watches allowed`).toEqual([]);
  });

  it.each([
    ['kept', {}],
    ['dropped when idle (maxIdleLocks 0)', { maxIdleLocks: 0 }],
  ] as const)('MutexSet, its idle locks %s: an uncontended acquire + release costs what the mutex costs', async (name, options) => {
    const t = await tallied();
    const locks = new MutexSet(t.session, `${root}/set-${name.split(' ')[0]}`, options);
    const keys = ['order-1', 'order-2', 'order-3'];
    for (const key of keys) await (await locks.acquire(key)).release(); // creates the keys' directories
    const tally = await costOfCycles(t, CYCLES, async (i) => (await locks.acquire(keys[i % keys.length]!)).release());
    expect(overBudget(costPer(tally, CYCLES), UNCONTENDED), describeTally(tally)).toEqual([]);
  });

  it('MutexSet with deleteIdleDirectories: the directory deleted after each cycle and made again by the next', async () => {
    const t = await tallied();
    const base = `${root}/set-delete`;
    const locks = new MutexSet(t.session, base, { deleteIdleDirectories: true });
    await (await locks.acquire('order-1')).release();
    await t.session.exists('/'); // answered after that cycle's directory delete
    const tally = await costOfCycles(t, CYCLES, async () => (await locks.acquire('order-1')).release(), { remadeDirectories: 'counted' });
    // Per cycle: the create and its listing (both NO_NODE: no directory), the directory and each of
    // its ancestors created again (mkdirp: one round trip, NODE_EXISTS but for the directory), the
    // create and its listing again, the delete of our node, the delete of the directory.
    const levels = locks.pathOf('order-1').split('/').length - 1;
    const perCycle = { create2: 2, getChildren2: 2, createContainer: levels, delete: 2 };
    expect(tally.byOp, describeTally(tally)).toEqual(Object.fromEntries(Object.entries(perCycle).map(([op, n]) => [op, n * CYCLES])));
    expect(t.proxy.requestsTo(ZK_OPCODES.delete, locks.pathOf('order-1'))).toBe(CYCLES + 1);
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
    // The only writes are the creates and the deletes.
    expect(Object.keys(tally.byOp).filter((op) => !READS.has(op)).sort()).toEqual(['create2', 'delete']);
  });
});
