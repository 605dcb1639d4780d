/**
 * The worker side of {@link runWorkers}: print JSON lines (bigints as strings) and wait at the
 * start line. Import it from a worker script.
 */
import { createInterface } from 'node:readline';

/** What a worker prints to say it is at the start line. */
export const READY_LINE = {
  /** Marks the ready line among a worker's JSON lines. */
  type: 'ready',
} as const;
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

/**
 * `ZKR_REPORT=at-end` in a worker's environment: keep its lines and print them all with its `done`
 * line, or at exit (`ready` lines still go out at once). Benchmarks set it so that no contender spends CPU on
 * output, nor wakes the parent to parse it, while the others are being measured; tests that watch
 * a worker live (e.g. for its `acquired` line) leave it unset.
 */
const AT_END = process.env['ZKR_REPORT'] === 'at-end';
const held: string[] = [];
// Also at exit, for workers that end without a done line (stdout to a pipe is synchronous on Linux).
if (AT_END) process.on('exit', () => process.stdout.write(held.splice(0).join('')));

/** Prints one JSON line to stdout (or keeps it, see `ZKR_REPORT`); bigints become decimal strings. */
export function report(line: object): void {
  const text = `${JSON.stringify(line, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))}\n`;
  const type = (line as { type?: unknown }).type;
  if (!AT_END || type === 'ready') {
    process.stdout.write(text);
    return;
  }
  held.push(text);
  if (type === 'done') process.stdout.write(held.splice(0).join(''));
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
