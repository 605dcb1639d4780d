/**
 * Bound for herd-free queue semaphores (not a correct semaphore): the least work a FIFO queue of
 * lease nodes can do per section with one wake per release and leases handed over in parallel.
 * Each loop creates an EPHEMERAL_SEQUENTIAL node with the listing pipelined behind it; a node
 * among the first L holds, any later one watches the node L places ahead of it and lists again
 * when that node goes. Five requests per section, one wake per release.
 *
 * What makes it a bound and not a recipe: it assumes releases in FIFO order. When a holder that is
 * not the oldest releases, the node now entitled to that lease is watching another node and
 * sleeps on: the lease stays idle until the oldest holder goes (with one long holder, the
 * semaphore shrinks to one lease). Waking that node takes a second process woken by the release,
 * or a write by the releaser: both cost more than this.
 *
 * Usage: herdFreeBoundWorker.ts <connectString> <dir> <leases> <iterations> <holdMs>
 */
import { report, workerName, workerReady } from '@zk-recipes/testing';
import { RawZk } from './rawZk.js';

const [connectString, dir, leasesArg, iterationsArg, holdMsArg] = process.argv.slice(2);
if (connectString === undefined || dir === undefined) {
  throw new Error('usage: herdFreeBoundWorker.ts <connectString> <dir> <leases> <iterations> <holdMs>');
}
const leases = Number(leasesArg ?? 3);
const iterations = Number(iterationsArg ?? 50);
const holdMs = Number(holdMsArg ?? 2);
const worker = workerName();
const sequenceOf = (name: string) => Number(name.slice(-10));

const zk = await RawZk.connect(connectString, 10_000);
await zk.mkdirp(dir);
await workerReady();
for (let i = 0; i < iterations; i++) {
  const created = zk.createSequential(`${dir}/lease-`);
  let listing = zk.getChildren(dir);
  const path = await created;
  const own = path.slice(dir.length + 1);
  for (;;) {
    const queue = (await listing).sort((a, b) => sequenceOf(a) - sequenceOf(b));
    const index = queue.indexOf(own);
    if (index < leases) break;
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    if (await zk.existsWatch(`${dir}/${queue[index - leases]}`, () => wake())) await woken;
    listing = zk.getChildren(dir);
  }
  const start = process.hrtime.bigint();
  if (holdMs > 0) await new Promise((resolve) => setTimeout(resolve, holdMs));
  const end = process.hrtime.bigint();
  await zk.delete(path);
  report({ type: 'section', worker, start, end });
}
zk.close();
report({ type: 'done', worker });
