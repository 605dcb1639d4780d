/**
 * One contender process for the crossed-order test: loops acquire → hold → release on a
 * multi-lock over the given paths, listed in the given order, with its own ZooKeeper session.
 * Prints one JSON line per critical section (times from process.hrtime.bigint(), comparable
 * across processes), then `{ done: true }`. Each acquire has a generous timeout so a deadlock
 * shows up as a failed worker instead of a hang.
 * Usage: multiLockWorker.ts <connectString> <comma-separated paths> <order> <iterations> <holdMs>
 */
import { ZkSession } from '@zk-recipes/core';
import { InterProcessMultiLock } from '@zk-recipes/multi-lock';

const [connectString, pathsArg, orderArg, iterationsArg, holdMsArg, barrierPath, partiesArg] = process.argv.slice(2);
if (connectString === undefined || pathsArg === undefined || barrierPath === undefined) {
  throw new Error('usage: multiLockWorker.ts <connectString> <paths,...> <canonical|as-given> <iterations> <holdMs> <barrierPath> <parties>');
}
const order = orderArg === 'as-given' ? 'as-given' : 'canonical';
const iterations = Number(iterationsArg ?? 20);
const holdMs = Number(holdMsArg ?? 1);
const worker = `node-${process.pid}`;

const session = await ZkSession.connect({ connectString, sessionTimeoutMs: 10_000 });

/** Registers at the barrier and resolves once `parties` workers have (a child watch, no polling). */
async function meetAtBarrier(path: string, parties: number): Promise<void> {
  await session.mkdirp(path, 'persistent');
  await session.create(`${path}/worker-`, null, { mode: 'ephemeral_sequential' });
  for (;;) {
    let changed!: () => void;
    const childrenChanged = new Promise<void>((resolve) => (changed = resolve));
    const { children } = await session.getChildren(path, () => changed());
    if (children.length >= parties) return;
    await childrenChanged;
  }
}

await meetAtBarrier(barrierPath, Number(partiesArg ?? 2));
const multi = InterProcessMultiLock.fromPaths(session, pathsArg.split(','), { order });
for (let i = 0; i < iterations; i++) {
  const handle = await multi.acquire({ timeoutMs: 20_000 });
  const start = process.hrtime.bigint();
  if (holdMs > 0) await new Promise((resolve) => setTimeout(resolve, holdMs));
  const end = process.hrtime.bigint();
  await handle.release();
  process.stdout.write(`${JSON.stringify({ worker, start: String(start), end: String(end), tokens: handle.fencingTokens.map(String) })}\n`);
}
await session.close();
process.stdout.write(`${JSON.stringify({ worker, done: true })}\n`);
