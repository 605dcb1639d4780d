/**
 * One contender process for the multi-process tests and the benchmark: loops acquire → hold →
 * release on one InterProcessSemaphore with its own ZooKeeper session, printing one JSON line per
 * lease held (times from process.hrtime.bigint(), CLOCK_MONOTONIC, comparable across processes
 * and with Java's System.nanoTime()).
 * Usage: semaphoreWorker.ts [--wait-go] <connectString> <path> <maxLeases> <iterations> <holdMs> [queue|curator]
 * With --wait-go it prints {"type":"ready"} once connected and starts when "go" arrives on stdin.
 */
import { createInterface } from 'node:readline';
import { ZkSession } from '@zk-recipes/core';
import { InterProcessSemaphore } from '@zk-recipes/semaphore';
import { report } from '@zk-recipes/testing';

const argv = process.argv.slice(2);
const waitGo = argv[0] === '--wait-go';
const [connectString, path, maxLeasesArg, iterationsArg, holdMsArg, layoutArg] = waitGo ? argv.slice(1) : argv;
if (connectString === undefined || path === undefined) {
  throw new Error('usage: semaphoreWorker.ts [--wait-go] <connectString> <path> <maxLeases> <iterations> <holdMs> [queue|curator]');
}
const maxLeases = Number(maxLeasesArg ?? 3);
const iterations = Number(iterationsArg ?? 20);
const holdMs = Number(holdMsArg ?? 1);
const layout = layoutArg === 'curator' ? 'curator' : 'queue';
const worker = `node-${process.pid}`;

const session = await ZkSession.connect({ connectString, sessionTimeoutMs: 10_000 });
const semaphore = new InterProcessSemaphore(session, path, { maxLeases, layout });
if (waitGo) {
  process.stdout.write(`${JSON.stringify({ type: 'ready', worker })}\n`);
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) if (line.trim() === 'go') break;
  lines.close();
}
const began = process.hrtime.bigint();
for (let i = 0; i < iterations; i++) {
  const lease = await semaphore.acquire();
  const start = process.hrtime.bigint();
  if (holdMs > 0) await new Promise((resolve) => setTimeout(resolve, holdMs));
  const end = process.hrtime.bigint();
  await lease.release();
  // Printed after the release so that writing output never lengthens the hold; with
  // ZKR_REPORT=at-end (benchmarks) report() keeps the lines until the done line.
  report({ type: 'section', worker, lock: 'lease', i, start, end });
}
const elapsedNs = process.hrtime.bigint() - began;
await session.close();
report({ type: 'done', done: true, worker, iterations, elapsedNs });
process.exit(0);
