/**
 * Nothing on the success path that only a failure needs: acquisitions and releases that succeed
 * build no error object (each captures a stack trace, read or not). Counted by
 * `@zk-recipes/testing/errorTally`, installed before the library is loaded (hence the dynamic
 * imports below): every `Error` constructed, ours and the wire client's, and every abort without
 * a reason (which makes Node build a DOMException).
 */
import { installErrorTally, type ErrorCounts } from '@zk-recipes/testing/errorTally';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ZkSession as ZkSessionType } from '@zk-recipes/core';
import type { TalliedSession } from '@zk-recipes/testing';

const tally = installErrorTally();
const { ZkSession, ZkRecipesError, NodeDeletedError } = await import('@zk-recipes/core');
const { InterProcessMutex, InterProcessSemaphoreMutex } = await import('@zk-recipes/mutex');
const { InterProcessReadWriteLock } = await import('@zk-recipes/read-write-lock');
const { InterProcessSemaphore } = await import('@zk-recipes/semaphore');
const { costOfHandOffs, connectTallied, testConnectString, uniqueRoot } = await import('@zk-recipes/testing');

/**
 * Error objects built per uncontended acquire + release: none. Our own delete fires the watch on
 * our own node; its deletion is noted as a flag and an error is built only for a caller who is
 * told (core/src/engine/ownNode.ts), and while our delete is on its way nobody is.
 */
const UNCONTENDED_ERRORS_PER_CYCLE = 0;
/**
 * Error objects built per contended hand-off (4 sessions looping on one lock, hold 0): none. A
 * waiter's watch request often reaches a node already deleted: that NO_NODE is an answer
 * (`ZkSession.getChildrenIfExists`, a reply code that is not an Error), not an error.
 */
const CONTENDED_ERRORS_PER_HANDOFF = 0;

const CYCLES = 20;
const HANDOFFS = 200;
const CONTENDERS = 4;
const root = uniqueRoot('mutex-success-errors');
let session: ZkSessionType;
const opened: TalliedSession[] = [];

beforeAll(async () => {
  session = await ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs: 10_000 });
});
afterAll(async () => {
  await Promise.all([session.close(), ...opened.map((t) => t.close())]);
});

/** `count` cycles of `cycle` after one that creates the lock's directory (which may build errors: NODE_EXISTS of its parents). */
async function errorsDuring(count: number, cycle: () => Promise<void>): Promise<ErrorCounts> {
  await cycle();
  const mark = tally.counts();
  for (let i = 0; i < count; i++) await cycle();
  // Everything the cycles sent is answered before this reply (ZooKeeper answers a session in order).
  await session.exists('/');
  return tally.since(mark);
}

describe('error objects built on the success path', () => {
  it('the tally is installed ahead of the library and counts its errors', () => {
    expect(tally.covers(ZkRecipesError)).toBe(true);
    const mark = tally.counts();
    void new NodeDeletedError('probe');
    new AbortController().abort();
    expect(tally.since(mark).byName).toEqual({ NodeDeletedError: 1, AbortError: 1 });
  });

  /** One lock of each recipe on `path` in `s` (for the `i`-th contender): something to acquire and release. */
  type MakeLock = (s: ZkSessionType, path: string, i: number) => { acquire(): Promise<{ release(): Promise<void> }> };
  const recipes: ReadonlyArray<[string, MakeLock]> = [
    ['InterProcessMutex', (s, path) => new InterProcessMutex(s, path)],
    ['InterProcessSemaphoreMutex', (s, path) => new InterProcessSemaphoreMutex(s, path)],
    ['read lock', (s, path) => new InterProcessReadWriteLock(s, path).readLock()],
    ['write lock', (s, path) => new InterProcessReadWriteLock(s, path).writeLock()],
    ['InterProcessSemaphore (2 leases)', (s, path) => new InterProcessSemaphore(s, path, { maxLeases: 2 })],
  ];

  it.each(recipes)(`%s: ${CYCLES} uncontended acquire + release cycles`, async (name, make) => {
    const lock = make(session, `${root}/uncontended-${name.replace(/\W+/g, '-')}`, 0);
    const built = await errorsDuring(CYCLES, async () => {
      const handle = await lock.acquire();
      await handle.release();
    });
    expect(built.total, JSON.stringify(built.byName)).toBeLessThanOrEqual(CYCLES * UNCONTENDED_ERRORS_PER_CYCLE);
  });

  const contended: ReadonlyArray<[string, MakeLock]> = [
    ...recipes.filter(([name]) => name !== 'read lock'),
    ['readers and writers', (s, path, i) => (i % 2 === 0 ? new InterProcessReadWriteLock(s, path).writeLock() : new InterProcessReadWriteLock(s, path).readLock())],
  ];

  it.each(contended)(`%s: ${HANDOFFS} hand-offs among ${CONTENDERS} sessions`, async (name, make) => {
    const contenders = [];
    for (let i = 0; i < CONTENDERS; i++) {
      const t = await connectTallied();
      opened.push(t);
      const lock = make(t.session, `${root}/contended-${name.replace(/\W+/g, '-')}`, i);
      contenders.push({ proxy: t.proxy, cycle: async () => (await lock.acquire()).release() });
    }
    let mark: ErrorCounts = tally.counts();
    let built: ErrorCounts | undefined;
    await costOfHandOffs(contenders, {
      warmup: 2 * CONTENDERS,
      sections: HANDOFFS,
      onWindow: (edge) => {
        if (edge === 'start') mark = tally.counts();
        else built = tally.since(mark);
      },
    });
    expect(built!.total / HANDOFFS, JSON.stringify(built!.byName)).toBeLessThanOrEqual(CONTENDED_ERRORS_PER_HANDOFF);
  });
});
