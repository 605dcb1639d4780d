/**
 * One process of the MutexSet multi-process test: `<tasks>` concurrent tasks share one MutexSet
 * (one session); each loops `<iterations>` times over keys picked at random from `<keys>`:
 * acquire → hold → release, printing one JSON line per critical section with its key
 * (process.hrtime.bigint(): CLOCK_MONOTONIC, comparable across processes).
 * Usage: mutexSetWorker.ts <connectString> <basePath> <keys> <tasks> <iterations> <holdMs> [maxIdleLocks]
 */
import { ZkSession } from '@zk-recipes/core';
import { MutexSet } from '@zk-recipes/mutex';
import { report, workerName, workerReady } from '@zk-recipes/testing';

const [connectString, base, keysArg, tasksArg, iterationsArg, holdMsArg, maxIdleArg] = process.argv.slice(2);
if (connectString === undefined || base === undefined) {
  throw new Error('usage: mutexSetWorker.ts <connectString> <basePath> <keys> <tasks> <iterations> <holdMs> [maxIdleLocks]');
}
const keys = Number(keysArg ?? 20);
const tasks = Number(tasksArg ?? 8);
const iterations = Number(iterationsArg ?? 20);
const holdMs = Number(holdMsArg ?? 1);
const worker = workerName();

const session = await ZkSession.connect({ connectString, sessionTimeoutMs: 15_000 });
const locks = new MutexSet(session, base, { data: worker, ...(maxIdleArg === undefined ? {} : { maxIdleLocks: Number(maxIdleArg) }) });
await workerReady();
await Promise.all(
  Array.from({ length: tasks }, async (_, task) => {
    const name = `${worker}/task-${task}`;
    for (let i = 0; i < iterations; i++) {
      const key = `order/${Math.floor(Math.random() * keys)}`;
      await locks.withLock(key, async (handle) => {
        const start = process.hrtime.bigint();
        if (holdMs > 0) await new Promise((resolve) => setTimeout(resolve, holdMs));
        const end = process.hrtime.bigint();
        report({ type: 'section', worker: name, key, start, end, token: handle.fencingToken });
      });
    }
  }),
);
report({ type: 'done', worker, size: locks.size });
await session.close();
