/**
 * Raw ceiling of "N processes taking leases": each loop creates an EPHEMERAL_SEQUENTIAL node with
 * the listing pipelined behind it, holds, and deletes it, WITHOUT waiting for anyone (no
 * exclusion at all). Every queue-based semaphore does at least this per section, so N of these
 * processes show how many sections per second this machine and server can carry at most.
 * Usage: cycleWorker.ts <connectString> <dir> <iterations> <holdMs>
 */
import { report, workerName, workerReady } from '@zk-recipes/testing';
import { RawZk } from './rawZk.js';

const [connectString, dir, iterationsArg, holdMsArg] = process.argv.slice(2);
if (connectString === undefined || dir === undefined) throw new Error('usage: cycleWorker.ts <connectString> <dir> <iterations> <holdMs>');
const iterations = Number(iterationsArg ?? 50);
const holdMs = Number(holdMsArg ?? 2);
const worker = workerName();

const zk = await RawZk.connect(connectString, 10_000);
await zk.mkdirp(dir);
await workerReady();
for (let i = 0; i < iterations; i++) {
  const created = zk.createSequential(`${dir}/lease-`);
  const listing = zk.getChildren(dir);
  const path = await created;
  await listing;
  const start = process.hrtime.bigint();
  if (holdMs > 0) await new Promise((resolve) => setTimeout(resolve, holdMs));
  const end = process.hrtime.bigint();
  await zk.delete(path);
  report({ type: 'section', worker, start, end });
}
zk.close();
report({ type: 'done', worker });
