/**
 * Heap growth of a MutexSet used with ever new keys (run with --expose-gc): after a warm-up that
 * fills its idle locks, acquires and releases `<keys>` keys never used before, 32 at a time, twice,
 * and prints `{ perKeyBytes, size, maxIdleLocks }` as JSON. `perKeyBytes` is the smaller of the two
 * rounds' growth per key: what grows with the keys grows in both, while the heap's own jitter (a
 * few hundred kilobytes) rarely lands on both.
 * Usage: mutexSetHeap.ts <connectString> <basePath> <keys> [maxIdleLocks]
 */
import { ZkSession } from '@zk-recipes/core';
import { DEFAULT_MAX_IDLE_LOCKS, MutexSet } from '@zk-recipes/mutex';

const [connectString, base, keysArg, maxIdleArg] = process.argv.slice(2);
if (connectString === undefined || base === undefined) throw new Error('usage: mutexSetHeap.ts <connectString> <basePath> <keys> [maxIdleLocks]');
const keys = Number(keysArg ?? 20_000);
const maxIdleLocks = Number(maxIdleArg ?? DEFAULT_MAX_IDLE_LOCKS);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

const session = await ZkSession.connect({ connectString, sessionTimeoutMs: 30_000 });
const locks = new MutexSet(session, base, { maxIdleLocks });
let next = 0;
const use = async (count: number): Promise<void> => {
  const end = next + count;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < end) await locks.withLock(`key-${next++}`, () => undefined);
    }),
  );
};
const heap = async (): Promise<number> => {
  await new Promise((resolve) => setTimeout(resolve, 50));
  gc();
  return process.memoryUsage().heapUsed;
};
await use(Math.min(maxIdleLocks, 100_000) + 2_000); // the idle locks full, everything warm
const before = await heap();
await use(keys);
const middle = await heap();
await use(keys);
const after = await heap();
const perKeyBytes = Math.min(middle - before, after - middle) / keys;
process.stdout.write(`${JSON.stringify({ perKeyBytes, size: locks.size, maxIdleLocks })}\n`);
await session.close();
