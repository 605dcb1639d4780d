/** Heap measurements for the many-waiters scenario (the process must run with --expose-gc). */

/** V8 heap in use after a full collection. */
export function usedHeapAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with node --expose-gc');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** Samples heapUsed every `everyMs` (no GC: garbage included) until stopped; returns the peak. */
export function heapSampler(everyMs = 20): { stop(): number } {
  let peak = process.memoryUsage().heapUsed;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().heapUsed);
    },
  };
}
