/**
 * The worker side of {@link runWorkers}: print JSON lines (bigints as strings) and wait at the
 * start line. Import it from a worker script.
 */
import { createInterface } from 'node:readline';

/** What a worker prints to say it is at the start line. */
export const READY_LINE = { type: 'ready' } as const;
/** What the parent sends on stdin to release the workers. */
export const GO_LINE = 'go';

/** Whether a parsed line is a worker's ready line. */
export function isReadyLine(line: unknown): boolean {
  return typeof line === 'object' && line !== null && (line as { type?: unknown }).type === 'ready';
}

/** This worker's name (`worker-<index>`), as given by runWorkers. */
export function workerName(): string {
  return process.env['ZKR_WORKER_NAME'] ?? `pid-${process.pid}`;
}

/** Prints one JSON line to stdout; bigints become decimal strings. */
export function report(line: object): void {
  process.stdout.write(`${JSON.stringify(line, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))}\n`);
}

/** Prints the ready line and resolves when the parent says go (runWorkers with `barrier: true`). */
export function workerReady(): Promise<void> {
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: process.stdin });
    let released = false;
    rl.on('line', (text) => {
      if (released || text.trim() !== GO_LINE) return;
      released = true;
      resolve();
      rl.close(); // emits 'close' synchronously: `released` is already set
      // Let stdin go so it does not keep the worker alive after its work.
      process.stdin.unref?.();
    });
    rl.on('close', () => {
      if (!released) reject(new Error('workerReady: stdin closed before "go"'));
    });
    report(READY_LINE);
  });
}
