import { fileURLToPath } from 'node:url';
import { isZkError, MultiReleaseError, ZkSession, type AcquireOptions, type LockHandle } from '@zk-recipes/core';
import { InterProcessMutex, InterProcessSemaphoreMutex } from '@zk-recipes/mutex';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { describeSlowness, expireSession, findOverlaps, handoffGaps, MachineLoad, runWorkers, testConnectString, uniqueRoot, untilChildCount } from '@zk-recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InterProcessMultiLock, type MultiLockMember } from '../src/index.js';
import { sessionInternals } from '@zk-recipes/core/internal';
import { expectSoonerThan } from '../../core/test/support/timeBound.js';
import { jitterMs, PROMISED_SLACK_MS } from '../../core/test/support/stalledServer.js';

const connectString = testConnectString();
const root = uniqueRoot('multi-lock');
const WORKER = fileURLToPath(new URL('./workers/multiLockWorker.ts', import.meta.url));

/** One JSON line of the crossed-order worker. */
interface SectionLine {
  worker: string;
  start?: string;
  end?: string;
  done?: boolean;
}

let session: ZkSession;
let other: ZkSession;

beforeAll(async () => {
  [session, other] = await Promise.all([
    ZkSession.connect({ connectString, sessionTimeoutMs: 4_000 }),
    ZkSession.connect({ connectString, sessionTimeoutMs: 4_000 }),
  ]);
});

afterAll(async () => {
  await Promise.all([session?.close(), other?.close()]);
});

/** A fresh lock directory per test. */
let counter = 0;
const dir = (name: string) => `${root}/${++counter}-${name}`;

/** The nodes in a lock directory right now ([] if it does not exist). */
async function nodesIn(path: string): Promise<string[]> {
  try {
    return (await session.getChildren(path)).children;
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return [];
    throw err;
  }
}

/** Resolves once `path` has `count` children (a child watch, no polling). */
async function childCount(path: string, count: number): Promise<void> {
  for (;;) {
    const changed = new Promise<void>((resolve) => {
      void session.getChildren(path, () => resolve()).then(({ children }) => {
        if (children.length === count) resolve();
      });
    });
    await changed;
    if ((await nodesIn(path)).length === count) return;
  }
}

describe('InterProcessMultiLock against ZooKeeper', () => {
  it('acquires several mutexes as one, then releases every node', async () => {
    const paths = [dir('c'), dir('a'), dir('b')];
    const multi = InterProcessMultiLock.fromPaths(session, paths);
    const handle = await multi.acquire({ timeoutMs: 5_000 });
    expect(handle.lockPaths).toEqual([...paths].sort());
    for (const [i, path] of handle.lockPaths.entries()) {
      expect(await nodesIn(path)).toEqual([handle.paths[i]!.slice(path.length + 1)]);
    }
    expect(handle.fencingTokens.every((token) => token > 0n)).toBe(true);
    // All members are held from the last one's grant on.
    expect(handle.grantedAt).toBe(Math.max(...handle.members.map((member) => member.grantedAt)));
    expect(handle.members.map((member) => member.grantedAt)).toEqual([...handle.members.map((member) => member.grantedAt)].sort((x, y) => x - y));
    const rival = InterProcessMultiLock.fromPaths(other, [paths[1]!, paths[0]!]);
    expect(await rival.tryAcquire({ timeoutMs: 100 })).toBeNull();
    await handle.release();
    // The rival's node went with its delete, sent before it settled (docs/architecture.md, "Deadlines").
    for (const path of paths) await untilChildCount(session, path, 0);
    for (const path of paths) expect(await nodesIn(path)).toEqual([]);
    const rivalHandle = await rival.tryAcquire({ timeoutMs: 2_000 });
    expect(rivalHandle?.held).toBe(true);
    await rivalHandle!.release();
  });

  it('crossed orders in two OS processes never deadlock (canonical order)', async () => {
    const paths = [dir('x'), dir('y'), dir('z')];
    const iterations = 25;
    const results = await runWorkers<SectionLine>({
      script: WORKER,
      count: 2,
      // Worker 0 lists the paths forward, worker 1 backward.
      args: (index) => [connectString, (index === 0 ? paths : [...paths].reverse()).join(','), 'canonical', String(iterations), '1'],
      barrier: true,
    });
    const lines = results.flatMap((result) => result.lines);
    const sections = lines.filter((line) => line.start !== undefined);
    expect(sections).toHaveLength(2 * iterations);
    expect(lines.filter((line) => line.done === true)).toHaveLength(2);
    const intervals = sections.map((line) => ({ worker: line.worker, start: BigInt(line.start!), end: BigInt(line.end!) }));
    expect(findOverlaps(intervals, { maxConcurrent: 1 })).toEqual([]);
    // They really contended: the locks passed back and forth between the two processes.
    const handoffs = handoffGaps(intervals).filter((gap) => gap.from !== gap.to);
    expect(handoffs.length).toBeGreaterThanOrEqual(5);
    for (const path of paths) expect(await nodesIn(path)).toEqual([]);
  });

  it('rolls back when the last member times out: earlier members released, no node left, one deadline', async () => {
    const [a, b, c] = [dir('a'), dir('b'), dir('c')];
    const blockerA = await new InterProcessMutex(other, a).acquire();
    const blockerC = await new InterProcessMutex(other, c).acquire();
    // Member c as the multi-lock calls it: when, and with what timeout.
    const realC = new InterProcessMutex(session, c);
    let callOfC: { at: number; timeoutMs: number | undefined } | undefined;
    const memberC: MultiLockMember = {
      path: c,
      acquire(options?: AcquireOptions) {
        callOfC = { at: performance.now(), timeoutMs: options?.timeoutMs };
        return realC.acquire(options);
      },
    };
    const multi = new InterProcessMultiLock([new InterProcessMutex(session, a), new InterProcessMutex(session, b), memberC]);
    // One deadline covers the wait for a AND for c: c gets what is left after a (and b), where
    // Curator's per-member timeout would give it all 3,000 ms again. The 2,700 ms left after a is
    // freed are for the hand-over a -> b -> c (a few round trips), then c's wait runs the rest out.
    const totalMs = 3_000;
    const started = performance.now();
    const pending = multi.acquire({ timeoutMs: totalMs }).then(
      () => ({ error: undefined as unknown, at: performance.now() }),
      (error: unknown) => ({ error, at: performance.now() }),
    );
    // The deadline started inside that call, so at or before this moment.
    const calledAt = performance.now();
    await childCount(a, 2); // our node queued behind the blocker
    // 300 ms of real time must pass while we wait for a, counted from after the call: a timer set
    // before it counts from its own start, and a busy machine can pause us between the two.
    while (performance.now() - calledAt < 300) await new Promise((resolve) => setTimeout(resolve, 10));
    const waitedMs = performance.now() - calledAt;
    await blockerA.release();
    const { error, at: settledAt } = await pending;
    expect(isZkError(error, 'LOCK_TIMEOUT'), String(error)).toBe(true);
    // Reaching c takes the hand-over through a and b before the deadline: a time bound.
    expect(
      callOfC,
      `slow: the hand-over a -> b -> c did not reach c within the ${(totalMs - waitedMs).toFixed(0)} ms from a's release to the deadline (machine ${describeSlowness(MachineLoad.now())}): ${String(error)}`,
    ).toBeDefined();
    expect((error as Error).message).toContain(c);
    // One deadline: c got at most what was left when a was freed (it was called after that), and
    // at least what was left when it was called (the deadline started after `started`).
    expect(callOfC!.timeoutMs).toBeLessThanOrEqual(Math.ceil(totalMs - waitedMs));
    expect(callOfC!.timeoutMs).toBeGreaterThanOrEqual(totalMs - (callOfC!.at - started));
    // Not before the deadline; by it plus the slack, and the lateness of a busy machine's timers.
    expect(settledAt - started).toBeGreaterThanOrEqual(totalMs - 10);
    const jitter = jitterMs();
    expect(
      settledAt - calledAt,
      `slow: the multi-lock settled ${(settledAt - calledAt).toFixed(0)} ms after its call, due at ${totalMs} ms + ${PROMISED_SLACK_MS} ms slack + ${jitter} ms jitter (400 ms × the machine's slowness)`,
    ).toBeLessThanOrEqual(totalMs + PROMISED_SLACK_MS + jitter);
    // Given back, last first: waited for within the slack, the rest in the background.
    await untilChildCount(session, a, 0);
    await untilChildCount(session, b, 0);
    await untilChildCount(session, c, 1);
    expect(await nodesIn(a)).toEqual([]);
    expect(await nodesIn(b)).toEqual([]);
    expect(await nodesIn(c)).toEqual([blockerC.path.slice(c.length + 1)]);
    expect(multi.isAcquiredInThisProcess()).toBe(false);
    await blockerC.release();
  });

  it('aborts mid-acquisition: stops at once, releases what it holds, leaves no node', async () => {
    const [a, b, c] = [dir('a'), dir('b'), dir('c')];
    const blockerB = await new InterProcessMutex(other, b).acquire();
    const controller = new AbortController();
    const multi = InterProcessMultiLock.fromPaths(session, [a, b, c]);
    const pending = multi.acquire({ signal: controller.signal });
    await childCount(b, 2); // our node is queued behind the blocker: we hold a and wait for b
    expect(await nodesIn(a)).toHaveLength(1);
    controller.abort(new Error('caller gave up'));
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' });
    // Given back: waited for within the slack, the rest in the background.
    await untilChildCount(session, a, 0);
    await untilChildCount(session, b, 1);
    expect(await nodesIn(a)).toEqual([]);
    expect(await nodesIn(b)).toEqual([blockerB.path.slice(b.length + 1)]);
    expect(await nodesIn(c)).toEqual([]);
    await blockerB.release();
  });

  it('releases every member when one fails, and reports the failure', async () => {
    const [a, b, c] = [dir('a'), dir('b'), dir('c')];
    const realB = new InterProcessMutex(session, b);
    let heldB: LockHandle | undefined;
    // A member whose handle refuses to release (say, a lock behind a broken network).
    const failing: MultiLockMember = {
      path: b,
      async acquire(options?: AcquireOptions) {
        heldB = await realB.acquire(options);
        return { ...fieldsOf(heldB), release: () => Promise.reject(new Error('release of b failed')), [Symbol.asyncDispose]: async () => {} };
      },
    };
    const multi = new InterProcessMultiLock([new InterProcessMutex(session, a), failing, new InterProcessMutex(session, c)]);
    const handle = await multi.acquire({ timeoutMs: 5_000 });
    const error = await handle.release().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(MultiReleaseError);
    expect((error as MultiReleaseError).code).toBe('MULTI_RELEASE_FAILED');
    expect((error as MultiReleaseError).errors.map(String)).toEqual(['Error: release of b failed']);
    expect(await nodesIn(a)).toEqual([]);
    expect(await nodesIn(c)).toEqual([]);
    expect(await nodesIn(b)).toHaveLength(1); // only the failed member is still held
    await heldB!.release();
  });

  it("session loss of a holder aborts the handle's signal and frees the locks for others", async () => {
    const [a, b] = [dir('a'), dir('b')];
    const doomed = await ZkSession.connect({ connectString, sessionTimeoutMs: 4_000 });
    try {
      const multi = InterProcessMultiLock.fromPaths(doomed, [a, b]);
      const handle = await multi.acquire({ timeoutMs: 5_000 });
      const lost = new Promise<Error>((resolve) => multi.once('lost', resolve));
      const aborted = new Promise<void>((resolve) => handle.signal.addEventListener('abort', () => resolve(), { once: true }));
      await expireSession(connectString, sessionInternals(doomed).credentials);
      await aborted;
      expect(handle.signal.aborted).toBe(true);
      expect(await lost).toBeInstanceOf(Error);
      const rival = InterProcessMultiLock.fromPaths(other, [a, b]);
      const rivalHandle = await rival.acquire({ timeoutMs: 10_000 });
      await handle.release(); // ownership is gone already: releasing does not throw
      await rivalHandle.release();
    } finally {
      await doomed.close();
    }
  });

  it('stops at once when a member it already holds loses its session mid-acquisition', async () => {
    const [a, b] = [dir('a'), dir('b')];
    const doomed = await ZkSession.connect({ connectString, sessionTimeoutMs: 4_000 });
    try {
      const blockerB = await new InterProcessMutex(other, b).acquire();
      const multi = new InterProcessMultiLock([new InterProcessMutex(doomed, a), new InterProcessMutex(session, b)]);
      const outcome = multi.acquire({ timeoutMs: 30_000 }).catch((err: unknown) => err);
      await childCount(b, 2); // we hold a (on the doomed session) and wait for b (on another one)
      const started = performance.now();
      await expireSession(connectString, sessionInternals(doomed).credentials);
      const error = await outcome;
      // The expiry deletes a's node too; whichever news reaches the doomed session first is told.
      expect(isZkError(error, 'SESSION_LOST') || isZkError(error, 'NODE_DELETED'), String(error)).toBe(true);
      expectSoonerThan('the refusal after the expiry (not the 30 s deadline)', performance.now() - started, 10_000);
      expect(await nodesIn(a)).toEqual([]);
      expect(await nodesIn(b)).toEqual([blockerB.path.slice(b.length + 1)]);
      await blockerB.release();
    } finally {
      await doomed.close();
    }
  });

  it('the caller owns the multi-lock and every member by context: re-entrant when its members are', async () => {
    const [a, b] = [dir('a'), dir('b')];
    const mutexA = new InterProcessMutex(session, a);
    const mutexB = new InterProcessMutex(session, b);
    const multi = new InterProcessMultiLock([mutexB, mutexA]);
    // A task started before the acquire is independent of the holder.
    let startSibling!: () => void;
    const gate = new Promise<void>((resolve) => (startSibling = resolve));
    const sibling = (async () => {
      await gate;
      return [multi.isOwnedByCurrentContext(), await multi.release().catch((err: unknown) => err)] as const;
    })();
    await multi.acquire({ timeoutMs: 5_000 });
    expect(multi.isOwnedByCurrentContext()).toBe(true);
    expect(mutexA.isOwnedByCurrentContext()).toBe(true);
    expect(mutexB.isOwnedByCurrentContext()).toBe(true);
    // Re-entering a member and the multi-lock itself creates no node.
    const innerA = await mutexA.acquire({ timeoutMs: 0 });
    const again = await multi.acquire({ timeoutMs: 0 });
    expect(await nodesIn(a)).toHaveLength(1);
    expect(await nodesIn(b)).toHaveLength(1);
    startSibling();
    const [siblingOwns, siblingRelease] = await sibling;
    expect(siblingOwns).toBe(false);
    expect(isZkError(siblingRelease, 'NOT_OWNER')).toBe(true);
    await multi.release(); // the inner acquisition
    await innerA.release();
    expect(await nodesIn(a)).toHaveLength(1);
    await multi.release(); // the outer one: nodes go
    expect(await nodesIn(a)).toEqual([]);
    expect(await nodesIn(b)).toEqual([]);
    expect(multi.isOwnedByCurrentContext()).toBe(false);
    expect(again.paths).toEqual([...new Set(again.paths)]);
  });

  it('is not re-entrant over a non-re-entrant member', async () => {
    const [a, b] = [dir('a'), dir('b')];
    const multi = new InterProcessMultiLock([new InterProcessMutex(session, a), new InterProcessSemaphoreMutex(session, b)]);
    const outer = await multi.acquire({ timeoutMs: 5_000 });
    expect(await multi.tryAcquire({ timeoutMs: 200 })).toBeNull();
    await untilChildCount(session, b, 1); // the try's node on b: its delete, sent before it settled or once its create's reply came (docs/architecture.md, "Deadlines")
    // The failed inner attempt gave back only its own re-entry of a: the outer still holds both.
    expect(await nodesIn(a)).toHaveLength(1);
    expect(await nodesIn(b)).toHaveLength(1);
    await outer.release();
    expect(await nodesIn(a)).toEqual([]);
    expect(await nodesIn(b)).toEqual([]);
  });

  it('takes read/write lock members: readers share across multi-locks, a writer waits for them', async () => {
    const [shared, m1, m2] = [dir('rw'), dir('m1'), dir('m2')];
    const readers1 = new InterProcessMultiLock([new InterProcessReadWriteLock(session, shared).readLock(), new InterProcessMutex(session, m1)]);
    const readers2 = new InterProcessMultiLock([new InterProcessReadWriteLock(other, shared).readLock(), new InterProcessMutex(other, m2)]);
    const held1 = await readers1.acquire({ timeoutMs: 5_000 });
    const held2 = await readers2.acquire({ timeoutMs: 5_000 });
    const writer = new InterProcessMultiLock([new InterProcessReadWriteLock(other, shared).writeLock(), new InterProcessMutex(other, m1)]);
    expect(await writer.tryAcquire({ timeoutMs: 200 })).toBeNull();
    await untilChildCount(session, shared, 2); // the writer's node: its delete, sent before it settled
    expect(await nodesIn(shared)).toHaveLength(2);
    await Promise.all([held1.release(), held2.release()]);
    const written = await writer.acquire({ timeoutMs: 5_000 });
    await written.release();
    for (const path of [shared, m1, m2]) expect(await nodesIn(path)).toEqual([]);
  });

  it('a write lock listed before its read lock downgrades inside one multi-lock', async () => {
    const path = dir('rw');
    const rw = new InterProcessReadWriteLock(session, path);
    const multi = new InterProcessMultiLock([rw.writeLock(), rw.readLock()]);
    const held = await multi.acquire({ timeoutMs: 5_000 });
    expect(rw.writeLock().isOwnedByCurrentContext()).toBe(true);
    expect(rw.readLock().isOwnedByCurrentContext()).toBe(true);
    await held.release();
    expect(await nodesIn(path)).toEqual([]);
  });
});


/** The data fields of a handle (its getters), for wrapping it. */
function fieldsOf(handle: LockHandle) {
  return {
    get path() {
      return handle.path;
    },
    get fencingToken() {
      return handle.fencingToken;
    },
    get grantedAt() {
      return handle.grantedAt;
    },
    get signal() {
      return handle.signal;
    },
    get held() {
      return handle.held;
    },
  };
}
