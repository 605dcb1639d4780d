/**
 * One contender process for the crossed-order test: loops acquire → hold → release on a
 * multi-lock over the given paths, listed in the given order, with its own ZooKeeper session.
 * Reports one JSON line per critical section (times from process.hrtime.bigint(), comparable
 * across processes), then `{ done: true }`. It waits at runWorkers' start line so the workers
 * really contend, and each acquire has a generous timeout so a deadlock shows up as a failed
 * worker instead of a hang.
 * Usage: multiLockWorker.ts <connectString> <paths,...> <canonical|as-given> <iterations> <holdMs>
 */
import { ZkSession } from '@zk-recipes/core';
import { InterProcessMultiLock } from '@zk-recipes/multi-lock';
import { report, workerName, workerReady } from '@zk-recipes/testing';

const [connectString, pathsArg, orderArg, iterationsArg, holdMsArg] = process.argv.slice(2);
if (connectString === undefined || pathsArg === undefined) {
  throw new Error('usage: multiLockWorker.ts <connectString> <paths,...> <canonical|as-given> <iterations> <holdMs>');
}
const order = orderArg === 'as-given' ? 'as-given' : 'canonical';
const iterations = Number(iterationsArg ?? 20);
const holdMs = Number(holdMsArg ?? 1);
const worker = workerName();

const session = await ZkSession.connect({ connectString, sessionTimeoutMs: 10_000 });
const multi = InterProcessMultiLock.fromPaths(session, pathsArg.split(','), { order });
await workerReady();
for (let i = 0; i < iterations; i++) {
  const handle = await multi.acquire({ timeoutMs: 20_000 });
  const start = process.hrtime.bigint();
  if (holdMs > 0) await new Promise((resolve) => setTimeout(resolve, holdMs));
  const end = process.hrtime.bigint();
  await handle.release();
  report({ worker, start, end, tokens: handle.fencingTokens });
}
await session.close();
report({ worker, done: true });
