/**
 * One contender process for the read/write lock's multi-process tests and benchmark: loops
 * acquire → hold → release on one half of an InterProcessReadWriteLock with its own ZooKeeper
 * session, printing one JSON line per critical section in the same shape as bench/java's
 * CuratorWorker (`{type:'section', worker, lock:'read'|'write', i, start, end}`), with times from
 * process.hrtime.bigint() (CLOCK_MONOTONIC, comparable across processes and with Java's nanoTime).
 *
 * Usage: rwWorker.ts [--wait-go] <connectString> <lockPath> <read|write> <iterations> <holdMs> [zk-recipes|curator] [startAtEpochMs]
 * With --wait-go it waits at runWorkers' start line (`workerReady()`: `barrier: true`) once
 * connected; without, it prints its ready line and starts at once, or at startAtEpochMs.
 */
import { ZkSession } from '@zk-recipes/core';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { report, workerReady } from '@zk-recipes/testing';

const argv = process.argv.slice(2);
const waitGo = argv[0] === '--wait-go';
const [connectString, lockPath, mode, iterationsArg, holdMsArg, namingArg, startAtArg] = waitGo ? argv.slice(1) : argv;
if (connectString === undefined || lockPath === undefined || (mode !== 'read' && mode !== 'write')) {
  throw new Error('usage: rwWorker.ts [--wait-go] <connectString> <lockPath> <read|write> <iterations> <holdMs> [zk-recipes|curator] [startAtEpochMs]');
}
const iterations = Number(iterationsArg ?? 20);
const holdMs = Number(holdMsArg ?? 1);
const naming = namingArg === 'curator' ? 'curator' : 'zk-recipes';
const worker = `node-${process.pid}`;
// report(): with ZKR_REPORT=at-end (benchmarks) the lines wait for the done line.
const emit = (fields: Record<string, unknown>) => report({ ...fields, worker });

const session = await ZkSession.connect({ connectString, sessionTimeoutMs: 10_000 });
const rw = new InterProcessReadWriteLock(session, lockPath, { naming });
const lock = mode === 'read' ? rw.readLock() : rw.writeLock();
if (waitGo) await workerReady();
else emit({ type: 'ready', nanoTime: String(process.hrtime.bigint()) });
// A common wall-clock start so that all workers (and their JIT-free first round trips) begin together.
const startAt = Number(startAtArg ?? 0);
if (startAt > Date.now()) await new Promise((resolve) => setTimeout(resolve, startAt - Date.now()));
const began = process.hrtime.bigint();
for (let i = 0; i < iterations; i++) {
  const handle = await lock.acquire();
  const start = process.hrtime.bigint();
  if (holdMs > 0) await new Promise((resolve) => setTimeout(resolve, holdMs));
  const end = process.hrtime.bigint();
  await handle.release();
  // Printed after the release so that writing output never lengthens the hold.
  emit({ type: 'section', lock: mode, i, start: String(start), end: String(end), token: String(handle.fencingToken) });
}
emit({ type: 'done', done: true, iterations, elapsedNs: String(process.hrtime.bigint() - began) });
await session.close();
