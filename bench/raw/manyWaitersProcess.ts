/**
 * Raw floor of "N waiters on one lock in one process", run as its own process (node --expose-gc):
 * one raw session creates a blocker node and N EPHEMERAL_SEQUENTIAL nodes (pipelined); each waiter
 * sets a data watch (exists) on its predecessor. Then the blocker is deleted and the waiters
 * run in order: a waiter whose predecessor is deleted deletes its own node. No lock library.
 * Prints one JSON line: { queueMs, drainMs, heapGrowthBytes, peakHeapGrowthBytes }.
 * Usage: manyWaitersProcess.ts <connectString> <dir> <n>
 */
import { RawZk } from './rawZk.js';
import { heapSampler, usedHeapAfterGc } from '../lib/heap.js';
import { packetsReceived } from '../lib/machine.js';

const [connectString, dir, nArg] = process.argv.slice(2);
if (connectString === undefined || dir === undefined || nArg === undefined) throw new Error('usage: manyWaitersProcess.ts <connectString> <dir> <n>');
const n = Number(nArg);

const zk = await RawZk.connect(connectString, 30_000);
await zk.mkdirp(dir);
const blocker = await zk.createSequential(`${dir}/n-`);
const heapBefore = usedHeapAfterGc();
const sampler = heapSampler();

const queueStart = process.hrtime.bigint();
const waits: Array<Promise<void>> = [];
const created: Array<Promise<void>> = [];
// Each waiter: create, then watch its predecessor (known: creates of one session are answered in
// order, so the previous create's node precedes ours).
let prevCreated: Promise<string> = Promise.resolve(blocker);
for (let i = 0; i < n; i++) {
  const own = zk.createSequential(`${dir}/n-`);
  const pred = prevCreated;
  const turn = (async () => {
    const [ownPath, predPath] = await Promise.all([own, pred]);
    let fired!: () => void;
    const predGone = new Promise<void>((resolve) => (fired = resolve));
    const exists = await zk.existsWatch(predPath, () => fired());
    return { ownPath, gone: exists ? predGone : Promise.resolve() };
  })();
  created.push(turn.then(() => undefined));
  waits.push(turn.then(async ({ ownPath, gone }) => {
    await gone;
    await zk.delete(ownPath);
  }));
  prevCreated = own;
}
await Promise.all(created);
const queueNs = process.hrtime.bigint() - queueStart;
const heapQueued = usedHeapAfterGc();

const packetsBeforeDrain = await packetsReceived(connectString);
const drainStart = process.hrtime.bigint();
await zk.delete(blocker);
await Promise.all(waits);
const drainNs = process.hrtime.bigint() - drainStart;
const peak = sampler.stop();
const drainRequestsPerWaiter = ((await packetsReceived(connectString)) - packetsBeforeDrain) / n;
zk.close();
process.stdout.write(
  `${JSON.stringify({ type: 'bench', queueMs: Number(queueNs) / 1e6, drainMs: Number(drainNs) / 1e6, heapGrowthBytes: heapQueued - heapBefore, peakHeapGrowthBytes: peak - heapBefore, drainRequestsPerWaiter })}\n`,
);
