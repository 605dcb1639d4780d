/**
 * One zk-recipes contender of `npm run bench:compare`, written as a new user would: a ZkSession,
 * a recipe, `acquire()` and `release()` through the handle. It imports nothing but the public
 * packages (and Node), because the compare bench copies this file into a temporary checkout of the
 * BASE commit and runs it there: the same program measures both builds.
 *
 * Protocol (the one of @zk-recipes/testing's runWorkers): connect, print `{"type":"ready"}`, wait
 * for a `go` line on stdin, run, then print every result line at the end (printing during the run
 * would take CPU from the contenders), close the session, exit.
 *
 * usage: worker.ts <mode> <connectString> <path> <iterations> <holdMs> [maxLeases]
 *   mode: mutex | read | write | semaphore   loop acquire → hold → release; a `section` line each
 *         uncontended                          <iterations> measured pairs after <holdMs> warm-up
 *                                              pairs (the 5th argument is the warm-up count here)
 * The `done` line carries `cpuUs`: process.cpuUsage() (user + system) from "go" to the loop's end.
 */
import { AsyncResource } from 'node:async_hooks';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { ZkSession } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { InterProcessSemaphore } from '@zk-recipes/semaphore';

const [mode, connectString, path, iterationsArg, holdArg, maxLeasesArg] = process.argv.slice(2);
if (mode === undefined || connectString === undefined || path === undefined) {
  throw new Error('usage: worker.ts <mutex|read|write|semaphore|uncontended> <connectString> <path> <iterations> <holdMs|warmup> [maxLeases]');
}
const iterations = Number(iterationsArg ?? 20);
const hold = Number(holdArg ?? 0);
const worker = process.env['ZKR_WORKER_NAME'] ?? `pid-${process.pid}`;
const lines: string[] = [];
const keep = (line: object): void => {
  lines.push(JSON.stringify(line, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
};

function go(): Promise<void> {
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: process.stdin });
    let released = false;
    rl.on('line', (text) => {
      if (released || text.trim() !== 'go') return;
      released = true;
      resolve();
      rl.close();
      process.stdin.unref?.();
    });
    rl.on('close', () => {
      if (!released) reject(new Error('stdin closed before "go"'));
    });
    process.stdout.write('{"type":"ready"}\n');
  });
}

/** What every lock and lease of the recipes give back: something to release. */
interface Held {
  release(): Promise<void>;
}

const session = await ZkSession.connect({ connectString, sessionTimeoutMs: 30_000 });

async function loop(acquire: () => Promise<Held>): Promise<void> {
  await go();
  const cpu = process.cpuUsage();
  for (let i = 0; i < iterations; i++) {
    const held = await acquire();
    const start = process.hrtime.bigint();
    if (hold > 0) await sleep(hold);
    const end = process.hrtime.bigint();
    await held.release();
    keep({ type: 'section', worker, lock: mode, i, start, end });
  }
  const used = process.cpuUsage(cpu);
  keep({ type: 'done', worker, iterations, cpuUs: used.user + used.system });
}

async function uncontended(): Promise<void> {
  const mutex = new InterProcessMutex(session, path!);
  // Each pair in a fresh async context, as each request of a server would be: acquiring in a loop
  // inside one async function would nest every acquire's owner in the previous one's.
  const root = new AsyncResource('bench-compare-uncontended');
  const pair = (): Promise<{ acquireNs: number; releaseNs: number }> =>
    root.runInAsyncScope(async () => {
      const t0 = process.hrtime.bigint();
      const handle = await mutex.acquire();
      const t1 = process.hrtime.bigint();
      await handle.release();
      return { acquireNs: Number(t1 - t0), releaseNs: Number(process.hrtime.bigint() - t1) };
    });
  // The gate first, then the warm-up: reading "go" from stdin and writing "ready" to stdout are
  // the first traffic on streams other than the session's socket, and after the warm-up they made
  // V8 recompile the stream code they share with it inside the measured window (about a quarter
  // of it: docs/benchmarks.md, "Uncontended"). One process: nothing to start together with.
  await go();
  for (let i = 0; i < hold; i++) await pair();
  const acquireNs: number[] = [];
  const releaseNs: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < iterations; i++) {
    const p = await pair();
    acquireNs.push(p.acquireNs);
    releaseNs.push(p.releaseNs);
  }
  const used = process.cpuUsage(cpu);
  keep({ type: 'bench', worker, n: iterations, acquireNs, releaseNs, cpuUs: used.user + used.system });
}

try {
  switch (mode) {
    case 'mutex': {
      const mutex = new InterProcessMutex(session, path);
      await loop(() => mutex.acquire());
      break;
    }
    case 'read':
    case 'write': {
      const rw = new InterProcessReadWriteLock(session, path);
      const lock = mode === 'read' ? rw.readLock() : rw.writeLock();
      await loop(() => lock.acquire());
      break;
    }
    case 'semaphore': {
      const semaphore = new InterProcessSemaphore(session, path, { maxLeases: Number(maxLeasesArg ?? 3) });
      await loop(() => semaphore.acquire());
      break;
    }
    case 'uncontended':
      await uncontended();
      break;
    default:
      throw new Error(`unknown mode ${mode}`);
  }
} finally {
  process.stdout.write(lines.map((l) => `${l}\n`).join(''));
  await session.close();
}
