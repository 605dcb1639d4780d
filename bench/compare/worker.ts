/**
 * One zk-recipes process of `npm run bench:compare`, written as a new user would: a ZkSession, a
 * recipe, `acquire()` and `release()` through the handle. It imports nothing but the public
 * packages, Node and ./window.ts, because the compare bench copies these two files into a
 * temporary checkout of the BASE commit and runs them there: the same program measures both builds.
 *
 * usage: worker.ts <mode> <connectString> <path> <holdMs> [name=value ...]
 *   mutex | read | write    loop acquire, hold, release on the lock at <path>
 *   semaphore               the same on a semaphore of `leases` (3)
 *   entities                `tasks` (32) concurrent loops, each section on one of `keys` (1000)
 *                           locks, `<path>/k<key>`, chosen at random
 *   drain                   warm up on `<path>/warm-<group>` (1 ms holds) until the window, then
 *                           one section on each of `<path>/drain-0` .. `drain-<rounds - 1>` (4)
 * The protocol (ready, go, warm-up, window, result line) is window.ts's.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ZkSession } from '@zk-recipes/core';
import * as mutexPackage from '@zk-recipes/mutex';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { InterProcessSemaphore } from '@zk-recipes/semaphore';
import { inFreshContext, loopUntilStopped, MeasuredWindow } from './window.js';

const [mode, connectString, path, holdArg, ...rest] = process.argv.slice(2);
if (mode === undefined || connectString === undefined || path === undefined || holdArg === undefined) {
  throw new Error('usage: worker.ts <mutex|read|write|semaphore|entities|drain> <connectString> <path> <holdMs> [name=value ...]');
}
const options = new Map(rest.map((kv) => kv.split('=') as [string, string]));
const option = (name: string, fallback: number): number => Number(options.get(name) ?? fallback);
const holdMs = Number(holdArg);
const worker = process.env['ZKR_WORKER_NAME'] ?? `pid-${process.pid}`;

/** What every lock and lease of the recipes give back: something to release. */
interface Held {
  release(): Promise<void>;
}

/**
 * Locks by key, one per entity: the `MutexSet` a user of this version would write, or, in a build
 * from before it existed (the base of a comparison may be one), what a user wrote then: an
 * InterProcessMutex per key, made on first use and kept. The loop is the same either way.
 */
interface EntityLocks {
  acquire(key: number): Promise<Held>;
}

function mutexPerKey(session: ZkSession, dir: string): EntityLocks {
  const MutexSet = (mutexPackage as { MutexSet?: new (s: ZkSession, base: string) => { acquire(key: string): Promise<Held> } }).MutexSet;
  if (MutexSet !== undefined) {
    const set = new MutexSet(session, dir);
    return { acquire: (key) => set.acquire(`k${key}`) };
  }
  const locks = new Map<number, InterProcessMutex>();
  return {
    acquire(key) {
      let lock = locks.get(key);
      if (lock === undefined) locks.set(key, (lock = new InterProcessMutex(session, `${dir}/k${key}`)));
      return lock.acquire();
    },
  };
}

const session = await ZkSession.connect({ connectString, sessionTimeoutMs: 30_000 });

/** One section on `acquire()`'s lock: timed, held `hold` ms, released, recorded under `key`. */
async function section(w: MeasuredWindow, acquire: () => Promise<Held>, hold: number, key: number): Promise<void> {
  const acquireAt = process.hrtime.bigint();
  const held = await acquire();
  const heldAt = process.hrtime.bigint();
  if (hold > 0) await sleep(hold);
  const holdEndAt = process.hrtime.bigint();
  await held.release();
  w.record(acquireAt, heldAt, holdEndAt, process.hrtime.bigint(), key);
}

function lockOf(kind: string): () => Promise<Held> {
  switch (kind) {
    case 'mutex': {
      const mutex = new InterProcessMutex(session, path!);
      return () => mutex.acquire();
    }
    case 'read':
    case 'write': {
      const rw = new InterProcessReadWriteLock(session, path!);
      const lock = kind === 'read' ? rw.readLock() : rw.writeLock();
      return () => lock.acquire();
    }
    case 'semaphore': {
      const semaphore = new InterProcessSemaphore(session, path!, { maxLeases: option('leases', 3) });
      return () => semaphore.acquire();
    }
    default:
      throw new Error(`unknown mode ${kind}`);
  }
}

let w: MeasuredWindow | undefined;
try {
  if (mode === 'entities') {
    const locks = mutexPerKey(session, path);
    const keys = option('keys', 1000);
    w = await MeasuredWindow.gate();
    const win = w;
    await loopUntilStopped(win, option('tasks', 32), () => {
      const key = Math.floor(Math.random() * keys);
      return section(win, () => locks.acquire(key), holdMs, key);
    });
  } else if (mode === 'drain') {
    const warm = new InterProcessMutex(session, `${path}/warm-${option('group', 0)}`);
    const rounds = Array.from({ length: option('rounds', 4) }, (_, r) => new InterProcessMutex(session, `${path}/drain-${r}`));
    w = await MeasuredWindow.gate();
    const win = w;
    // Held 1 ms, not 0: the drain's holds take the timer path, which must be warm too. Key -1: a
    // warm-up section still in hand when the window opens is not one of the drain's.
    while (!win.begun()) await inFreshContext(() => section(win, () => warm.acquire(), 1, -1));
    for (const [r, lock] of rounds.entries()) await inFreshContext(() => section(win, () => lock.acquire(), holdMs, r));
  } else {
    const acquire = lockOf(mode);
    w = await MeasuredWindow.gate();
    const win = w;
    await loopUntilStopped(win, 1, () => section(win, acquire, holdMs, 0));
  }
  w.finish({ worker, lock: mode });
} finally {
  await session.close();
}
