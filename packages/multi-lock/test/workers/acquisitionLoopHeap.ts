/**
 * Heap growth of a loop of multi-lock acquisitions in one async function, with one long-lived
 * caller signal (run with --expose-gc). Prints `{ perAcquisitionBytes }` as JSON.
 * Usage: acquisitionLoopHeap.ts <acquisitions>
 */
import { InterProcessMultiLock } from '../../src/index.js';
import { MemoryLock } from '../support/MemoryLock.js';

const n = Number(process.argv[2] ?? 20_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');
const locks = [new MemoryLock('/a'), new MemoryLock('/b'), new MemoryLock('/c')];
const multi = new InterProcessMultiLock(locks);
const signal = new AbortController().signal;
const loop = async (count: number): Promise<void> => {
  for (let i = 0; i < count; i++) {
    await (await multi.acquire({ signal })).release();
    // The test lock's own records, not the multi-lock's.
    MemoryLock.log.length = 0;
    for (const lock of locks) lock.received.length = 0;
  }
};
const heap = async (): Promise<number> => {
  await new Promise((resolve) => setTimeout(resolve, 20));
  gc();
  return process.memoryUsage().heapUsed;
};
await loop(2_000); // warm up
const before = await heap();
await loop(n);
const after = await heap();
process.stdout.write(`${JSON.stringify({ perAcquisitionBytes: (after - before) / n })}\n`);
