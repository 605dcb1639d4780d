/**
 * One contender process for the multi-process tests and benchmarks: loops acquire → hold →
 * release on one InterProcessMutex with its own ZooKeeper session, printing one JSON line per
 * critical section (times from process.hrtime.bigint(), CLOCK_MONOTONIC, comparable across
 * processes and with Java's System.nanoTime()).
 * Usage: mutexWorker.ts <connectString> <lockPath> <iterations> <holdMs>
 */
import { ZkSession } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';

const [connectString, lockPath, iterationsArg, holdMsArg] = process.argv.slice(2);
if (connectString === undefined || lockPath === undefined) {
  throw new Error('usage: mutexWorker.ts <connectString> <lockPath> <iterations> <holdMs>');
}
const iterations = Number(iterationsArg ?? 20);
const holdMs = Number(holdMsArg ?? 1);
const worker = `node-${process.pid}`;

const session = await ZkSession.connect({ connectString, sessionTimeoutMs: 10_000 });
const mutex = new InterProcessMutex(session, lockPath);
for (let i = 0; i < iterations; i++) {
  const handle = await mutex.acquire();
  const start = process.hrtime.bigint();
  if (holdMs > 0) await new Promise((resolve) => setTimeout(resolve, holdMs));
  const end = process.hrtime.bigint();
  await handle.release();
  process.stdout.write(`${JSON.stringify({ worker, start: String(start), end: String(end), token: String(handle.fencingToken) })}\n`);
}
await session.close();
process.stdout.write(`${JSON.stringify({ worker, done: true })}\n`);
