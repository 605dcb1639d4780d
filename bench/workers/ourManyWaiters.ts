/**
 * "N concurrent waiters on one lock in one process", zk-recipes side, run as its own process
 * (node --expose-gc): one ZkSession, one InterProcessMutex shared by N tasks, all queued behind a
 * blocker held through a second InterProcessMutex object (tasks started by the holder's own async
 * context would re-enter instead of queueing; see docs/mutex.md). Queued = every waiter is
 * waiting: the lock directory has N + 1 children (an observer session polls its stat) and the
 * server holds at least N watches (`wchs`), as in the raw floor, whose queue phase ends when each
 * waiter's watch is set. Then the blocker is released and the queue drains. Prints one JSON line: { queueMs, drainMs, heapGrowthBytes, peakHeapGrowthBytes }.
 * Usage: ourManyWaiters.ts <connectString> <lockPath> <n>
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ZkSession } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { heapSampler, usedHeapAfterGc } from '../lib/heap.js';
import { packetsReceived, watchCount } from '../lib/machine.js';

const [connectString, lockPath, nArg] = process.argv.slice(2);
if (connectString === undefined || lockPath === undefined || nArg === undefined) throw new Error('usage: ourManyWaiters.ts <connectString> <lockPath> <n>');
const n = Number(nArg);

const session = await ZkSession.connect({ connectString, sessionTimeoutMs: 30_000 });
const observer = await ZkSession.connect({ connectString, sessionTimeoutMs: 30_000 });
const mutex = new InterProcessMutex(session, lockPath);
const blocker = await new InterProcessMutex(session, lockPath).acquire();
const heapBefore = usedHeapAfterGc();
const sampler = heapSampler();

const queueStart = process.hrtime.bigint();
const waiters = Array.from({ length: n }, async () => {
  await mutex.acquire();
  await mutex.release();
});
while (((await observer.exists(lockPath))?.numChildren ?? 0) < n + 1) await sleep(5);
while ((await watchCount(connectString)) < n) await sleep(5);
const queueNs = process.hrtime.bigint() - queueStart;
const heapQueued = usedHeapAfterGc();

const packetsBeforeDrain = await packetsReceived(connectString);
const drainStart = process.hrtime.bigint();
await blocker.release();
await Promise.all(waiters);
const drainNs = process.hrtime.bigint() - drainStart;
const peak = sampler.stop();
const drainRequestsPerWaiter = ((await packetsReceived(connectString)) - packetsBeforeDrain) / n;
await observer.close();
await session.close();
process.stdout.write(
  `${JSON.stringify({ type: 'bench', queueMs: Number(queueNs) / 1e6, drainMs: Number(drainNs) / 1e6, heapGrowthBytes: heapQueued - heapBefore, peakHeapGrowthBytes: peak - heapBefore, drainRequestsPerWaiter })}\n`,
);
