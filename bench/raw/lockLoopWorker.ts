/**
 * Raw floor of "N processes contending for one lock": the classic recipe written directly on
 * node-zookeeper-client, no lock library. Loops: create an EPHEMERAL_SEQUENTIAL node with the
 * listing pipelined behind it; if among the first `slots` nodes, hold; else set an exists watch on
 * the node `slots` places ahead and, when it fires, list again and decide again. Prints the same
 * lines as mutexWorker.ts (one per critical section, process.hrtime.bigint()), so the bench
 * measures it the same way.
 *
 * With `slots` = 1 (the default) this is the textbook mutex. With `slots` = L it is the semaphore
 * benchmark's herd-free bound, not a semaphore: it hands leases over in parallel with one wake per
 * release only while releases come in queue order. When a holder that is not the oldest releases,
 * the node now entitled to its lease is watching another node and sleeps on, and the lease stays
 * idle until the oldest holder goes (see docs/benchmarks.md, "Why admissions form a chain").
 * Usage: lockLoopWorker.ts <connectString> <dir> <iterations> <holdMs> [slots]
 */
import { report, workerName, workerReady } from '@zk-recipes/testing';
import { RawZk } from './rawZk.js';

const [connectString, dir, iterationsArg, holdMsArg, slotsArg] = process.argv.slice(2);
if (connectString === undefined || dir === undefined) {
  throw new Error('usage: lockLoopWorker.ts <connectString> <dir> <iterations> <holdMs> [slots]');
}
const iterations = Number(iterationsArg ?? 20);
const holdMs = Number(holdMsArg ?? 1);
const slots = Number(slotsArg ?? 1);
if (!Number.isInteger(slots) || slots < 1) throw new Error(`lockLoopWorker.ts: slots must be a positive integer, got ${slotsArg}`);
const worker = workerName();

const sequenceOf = (name: string): number => Number(name.slice(-10));

const zk = await RawZk.connect(connectString, 10_000);
await zk.mkdirp(dir);
await workerReady();
for (let i = 0; i < iterations; i++) {
  const created = zk.createSequential(`${dir}/lock-`);
  let listing = zk.getChildren(dir);
  const own = (await created).slice(dir.length + 1);
  for (;;) {
    const sorted = (await listing).sort((a, b) => sequenceOf(a) - sequenceOf(b));
    const index = sorted.indexOf(own);
    if (index < slots) break;
    let fired!: () => void;
    const gone = new Promise<void>((resolve) => (fired = resolve));
    if (await zk.existsWatch(`${dir}/${sorted[index - slots]!}`, () => fired())) await gone;
    listing = zk.getChildren(dir);
  }
  const start = process.hrtime.bigint();
  if (holdMs > 0) await new Promise((resolve) => setTimeout(resolve, holdMs));
  const end = process.hrtime.bigint();
  await zk.delete(`${dir}/${own}`);
  report({ type: 'section', worker, start, end });
}
zk.close();
report({ type: 'done', worker });
