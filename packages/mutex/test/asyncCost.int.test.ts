/**
 * What an uncontended acquire + release costs the event loop, held to budgets: the promises and
 * immediates made per cycle, counted by an async_hooks init hook (every promise and every
 * immediate is an async resource). Each one is an allocation and a turn of work, and on a client
 * whose CPU is its throughput they add up (docs/benchmarks.md, "Uncontended"). The budgets are
 * what the code does today; lower them as the path gets leaner. Socket reads (and the
 * `TickObject`s the stream makes per read) are not counted: how the server's replies are split
 * into reads is the kernel's choice. Nor is the server's container reaper: a lock directory it
 * removes between two cycles costs the next create its re-creation, so a window in which one went
 * is measured again (`directoriesKept`).
 */
import { createHook } from 'node:async_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockKeyPath, ZkSession } from '@zk-recipes/core';
import { InterProcessMutex, InterProcessSemaphoreMutex, MutexSet } from '@zk-recipes/mutex';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { testConnectString, uniqueRoot } from '@zk-recipes/testing';

/**
 * Per cycle of `(await lock.acquire()).release()` awaited in a loop, the loop's own promises
 * included (the cycle's async function, its await and the loop's await). The library's: one per
 * call (create, listing, delete), the listing's batch and its send, the create's outcome and the
 * race of its listing against the acquisition's stop, the contender's outcome, the grant handed
 * out in the owner's frame, and one `then` per layer of the release. (31 before the create, the
 * listing's send and the release each became a chain of `then`s instead of async functions.)
 */
const PROMISES_PER_CYCLE = 22;
/** Work that comes every so many cycles: Node refills its pool of random UUIDs every 128, the session pings when idle. */
const PERIODIC_SLACK = 0.5;
/** Two socket writes (one per burst of requests: `session/writeBatching.ts`). */
const IMMEDIATES_PER_CYCLE = 2;
/**
 * The timer after which the holder's watch on its own node would be set, had nobody looked at the
 * holding before its release (`OwnNodeWatch.held`); cleared by the release.
 */
const TIMEOUTS_PER_CYCLE = 1;
const CYCLES = 50;
/**
 * Windows measured before giving up on one the reaper left alone. It runs every 60 s by default,
 * so a second window is almost never needed; five in a row would mean something else removes them.
 */
const WINDOWS = 5;

const root = uniqueRoot('mutex-async-cost');
let session: ZkSession;
beforeAll(async () => {
  session = await ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs: 10_000 });
});
afterAll(async () => {
  await session.close();
});

/** Each directory's creation (its `czxid`), or `null` when it does not exist. */
async function creations(directories: readonly string[]): Promise<(bigint | null)[]> {
  return Promise.all(directories.map(async (dir) => (await session.exists(dir))?.czxid ?? null));
}

/**
 * Async resources made, by type, per cycle over {@link CYCLES} cycles (after a warm-up that creates
 * the locks' directories), in a window during which none of `directories` was removed and made
 * again: the server's container reaper removes an empty lock directory (MutexSet's keys lie empty
 * three cycles in four), and the next create's recovery is not what a cycle costs.
 */
async function resourcesPerCycle(directories: readonly string[], cycle: () => Promise<void>): Promise<Record<string, number>> {
  for (let i = 0; i < 20; i++) await cycle();
  for (let window = 1; ; window++) {
    const before = await creations(directories);
    const made = new Map<string, number>();
    const hook = createHook({
      init(_asyncId, type) {
        made.set(type, (made.get(type) ?? 0) + 1);
      },
    }).enable();
    try {
      for (let i = 0; i < CYCLES; i++) await cycle();
    } finally {
      hook.disable();
    }
    const after = await creations(directories);
    const directoriesKept = before.every((czxid, i) => czxid !== null && czxid === after[i]);
    if (directoriesKept) return Object.fromEntries([...made].map(([type, count]) => [type, count / CYCLES]));
    if (window === WINDOWS) {
      throw new Error(`a lock directory was removed and made again during each of ${WINDOWS} windows: ${directories.join(', ')}`);
    }
  }
}

describe('event-loop cost of an uncontended acquire + release', () => {
  it.each([
    ['InterProcessMutex', (path: string) => new InterProcessMutex(session, path)],
    ['InterProcessSemaphoreMutex', (path: string) => new InterProcessSemaphoreMutex(session, path)],
    ['the write lock', (path: string) => new InterProcessReadWriteLock(session, path).writeLock()],
    ['the read lock', (path: string) => new InterProcessReadWriteLock(session, path).readLock()],
  ] as const)('%s', async (name, lockAt) => {
    const path = `${root}/${name.replaceAll(' ', '-')}`;
    const lock = lockAt(path);
    const made = await resourcesPerCycle([path], async () => (await lock.acquire()).release());
    expect(made['PROMISE'], JSON.stringify(made)).toBeLessThanOrEqual(PROMISES_PER_CYCLE + PERIODIC_SLACK);
    expect(made['Immediate'] ?? 0, JSON.stringify(made)).toBeLessThanOrEqual(IMMEDIATES_PER_CYCLE);
    expect(made['Timeout'] ?? 0, JSON.stringify(made)).toBeLessThanOrEqual(TIMEOUTS_PER_CYCLE + PERIODIC_SLACK);
  });

  it.each([
    ['kept', {}],
    ['dropped when idle (maxIdleLocks 0)', { maxIdleLocks: 0 }],
  ] as const)('a MutexSet, over 4 keys in turn, its idle locks %s: what the mutex costs, nothing more', async (name, options) => {
    const basePath = `${root}/set-${name.split(' ')[0]}`;
    const locks = new MutexSet(session, basePath, options);
    const keys = ['order-1', 'order-2', 'order-3', 'order-4'];
    let i = 0;
    const directories = keys.map((key) => lockKeyPath(basePath, key));
    const made = await resourcesPerCycle(directories, async () => (await locks.acquire(keys[i++ % keys.length]!)).release());
    expect(made['PROMISE'], JSON.stringify(made)).toBeLessThanOrEqual(PROMISES_PER_CYCLE + PERIODIC_SLACK);
    expect(made['Immediate'] ?? 0, JSON.stringify(made)).toBeLessThanOrEqual(IMMEDIATES_PER_CYCLE);
  });
});
