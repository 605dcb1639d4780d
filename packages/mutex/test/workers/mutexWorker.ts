/**
 * One contender process for the multi-process tests and benchmarks: loops acquire → hold →
 * release on one InterProcessMutex with its own ZooKeeper session, printing one JSON line per
 * critical section (process.hrtime.bigint(): CLOCK_MONOTONIC, comparable across processes and
 * with Java's System.nanoTime()).
 * Usage: mutexWorker.ts <connectString> <lockPath> <iterations> <holdMs> [sessionTimeoutMs]
 */
import { ZkSession } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { report, workerName, workerReady } from '@zk-recipes/testing';

const [connectString, lockPath, iterationsArg, holdMsArg, sessionTimeoutArg] = process.argv.slice(2);
if (connectString === undefined || lockPath === undefined) {
  throw new Error('usage: mutexWorker.ts <connectString> <lockPath> <iterations> <holdMs> [sessionTimeoutMs]');
}
const iterations = Number(iterationsArg ?? 20);
const holdMs = Number(holdMsArg ?? 1);
const worker = workerName();

const session = await ZkSession.connect({ connectString, sessionTimeoutMs: Number(sessionTimeoutArg ?? 10_000) });
const mutex = new InterProcessMutex(session, lockPath, { data: worker });
await workerReady();
for (let i = 0; i < iterations; i++) {
  const handle = await mutex.acquire();
  const start = process.hrtime.bigint();
  report({ type: 'acquired', worker, i, path: handle.path, sessionTimeoutMs: session.negotiatedSessionTimeoutMs });
  if (holdMs > 0) await new Promise((resolve) => setTimeout(resolve, holdMs));
  const end = process.hrtime.bigint();
  await handle.release();
  report({ type: 'section', worker, start, end, token: handle.fencingToken });
}
await session.close();
report({ type: 'done', worker });
