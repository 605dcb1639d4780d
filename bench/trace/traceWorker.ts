/**
 * One traced contender: loops acquire → hold → release like the benchmark workers, and records
 * every ZkSession call, reply and watch event with process.hrtime.bigint() (CLOCK_MONOTONIC: one
 * clock for all processes of the machine), plus its critical sections. The log is written as one
 * JSON file when the loop is done, so tracing costs a few array pushes during the run.
 *
 * Usage: traceWorker.ts <mutex|read|write|semaphore> <connectString> <path> <iterations> <holdMs> <maxLeases> <outFile>
 * Prints {"type":"ready"} once connected and starts on "go" (runWorkers' protocol).
 */
import { writeFileSync } from 'node:fs';
import { ZkSession, type Watcher } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { InterProcessSemaphore } from '@zk-recipes/semaphore';
import { workerReady } from '@zk-recipes/testing';
import type { TraceEntry } from './traceLog.js';

const [role, connectString, path, iterationsArg, holdMsArg, maxLeasesArg, outFile] = process.argv.slice(2);
if (role === undefined || connectString === undefined || path === undefined || outFile === undefined) {
  throw new Error('usage: traceWorker.ts <mutex|read|write|semaphore> <connectString> <path> <iterations> <holdMs> <maxLeases> <outFile>');
}
const iterations = Number(iterationsArg);
const holdMs = Number(holdMsArg);
const log: TraceEntry[] = [];
const now = (): string => String(process.hrtime.bigint());

const session = await ZkSession.connect({ connectString, sessionTimeoutMs: 10_000 });
traceSession(session);
const lock =
  role === 'mutex'
    ? new InterProcessMutex(session, path)
    : role === 'read'
      ? new InterProcessReadWriteLock(session, path).readLock()
      : role === 'write'
        ? new InterProcessReadWriteLock(session, path).writeLock()
        : new InterProcessSemaphore(session, path, { maxLeases: Number(maxLeasesArg) });

await workerReady();
for (let i = 0; i < iterations; i++) {
  const handle = await lock.acquire();
  log.push({ t: now(), what: 'start', path: handle.path, role });
  if (holdMs > 0) await new Promise((resolve) => setTimeout(resolve, holdMs));
  log.push({ t: now(), what: 'end', path: handle.path, role });
  await handle.release();
}
await session.close();
writeFileSync(outFile, JSON.stringify({ pid: process.pid, log }));
process.stdout.write(`${JSON.stringify({ type: 'done' })}\n`);

/** Wraps the session's request methods (and the watchers given to them) to log each step. */
function traceSession(s: ZkSession): void {
  const methods = ['create', 'getChildren', 'getData', 'exists', 'delete', 'setData'] as const;
  const wrappedWatchers = new Map<Watcher, Watcher>();
  for (const op of methods) {
    const original = (s[op] as (...args: unknown[]) => Promise<unknown>).bind(s);
    (s as unknown as Record<string, unknown>)[op] = (nodePath: string, ...rest: unknown[]) => {
      const watcher = rest[0];
      if ((op === 'getData' || op === 'getChildren' || op === 'exists') && typeof watcher === 'function') {
        const traced: Watcher = (event) => {
          log.push({ t: now(), what: 'event', op: event.type, path: nodePath });
          (watcher as Watcher)(event);
        };
        wrappedWatchers.set(watcher as Watcher, traced);
        rest[0] = traced;
      }
      log.push({ t: now(), what: 'call', op, path: nodePath });
      const reply = original(nodePath, ...rest);
      reply.then(
        () => log.push({ t: now(), what: 'reply', op, path: nodePath }),
        (err: { code?: string }) => log.push({ t: now(), what: 'error', op, path: nodePath, code: err.code }),
      );
      return reply;
    };
  }
  // The engine gives watches up with the watcher it set them with: map it to the traced one.
  for (const op of ['unwatch', 'removeWatches'] as const) {
    const original = s[op].bind(s);
    s[op] = (nodePath: string, watcher: Watcher) => original(nodePath, wrappedWatchers.get(watcher) ?? watcher);
  }
}
