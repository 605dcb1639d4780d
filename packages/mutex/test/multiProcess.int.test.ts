import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZkSession } from '@zk-recipes/core';
import { InterProcessMutex, type LockHandle } from '@zk-recipes/mutex';
import {
  childrenOf,
  untilChildCount,
  findOverlaps,
  handoffGaps,
  sectionIntervals,
  runWorkers,
  spawnCuratorWorker,
  testConnectString,
  uniqueRoot,
  type Interval,
  type WorkerResult,
} from '@zk-recipes/testing';

const worker = fileURLToPath(new URL('./workers/mutexWorker.ts', import.meta.url));
const root = uniqueRoot('mutex-processes');
let observer: ZkSession;

beforeAll(async () => {
  observer = await ZkSession.connect({ connectString: testConnectString() });
});
afterAll(async () => {
  await observer.close();
});

function sectionsOf(results: WorkerResult[]): Interval[] {
  return sectionIntervals(results.flatMap((r) => r.lines));
}

const children = (path: string) => childrenOf(observer, path);

describe('InterProcessMutex across OS processes', () => {
  it('6 processes with separate sessions never overlap; fencing tokens grow with each holder', async () => {
    const path = `${root}/six`;
    const iterations = 15;
    const results = await runWorkers({ script: worker, count: 6, args: [testConnectString(), path, String(iterations), '2'], barrier: true, timeoutMs: 120_000 });
    const sections = sectionsOf(results);
    expect(sections).toHaveLength(6 * iterations);
    expect(findOverlaps(sections)).toEqual([]);
    // The lock really moved between processes, not one process draining its loop.
    const handoffs = handoffGaps(sections).filter((h) => h.from !== h.to);
    expect(handoffs.length).toBeGreaterThan(6);
    const tokens = results
      .flatMap((r) => (r.lines as Array<{ type: string; start: string; token: string }>).filter((l) => l.type === 'section'))
      .sort((a, b) => (BigInt(a.start) < BigInt(b.start) ? -1 : 1))
      .map((l) => BigInt(l.token));
    for (let i = 1; i < tokens.length; i++) expect(tokens[i]!).toBeGreaterThan(tokens[i - 1]!);
    expect(await children(path)).toEqual([]);
  });

  it('excludes Apache Curator InterProcessMutex clients on the same path (2 JVMs + 4 Node processes)', async () => {
    const path = `${root}/curator`;
    const iterations = 15;
    // We hold the lock until all six processes are queued behind us: a JVM and a tsx process take
    // seconds to start on a busy machine, and a side that started late would find the other done.
    // (`await using`: released at the end if the test fails before it lets go.)
    await using gate = await new InterProcessMutex(observer, path).acquire();
    const gateStart = process.hrtime.bigint();
    const javas = await Promise.all([1, 2].map(() => spawnCuratorWorker(['mutex', testConnectString(), path, String(iterations), '2'])));
    try {
      const nodes = runWorkers({ script: worker, count: 4, args: [testConnectString(), path, String(iterations), '2'], barrier: true, timeoutMs: 150_000 });
      // Nobody has a section while we hold the lock: until then these settle only by failing (a
      // Node worker's or a JVM's exit), which ends the wait with its output.
      await Promise.race([
        untilChildCount(observer, path, 7, 120_000).catch((err: unknown) => {
          throw new Error(`slow: the six processes were not all queued within 120 s: ${(err as Error).message}`);
        }),
        nodes,
        ...javas.map((java) => java.waitForLine((l) => l.type === 'section', 120_000)),
      ]);
      const gateEnd = process.hrtime.bigint();
      await gate.release();
      const results = await nodes;
      await Promise.all(javas.map((java) => java.finished(120_000)));
      const javaSections: Interval[] = javas.flatMap((java) => java.sections().map((s) => ({ worker: s.worker, start: s.start, end: s.end })));
      const nodeSections = sectionsOf(results);
      expect(javaSections).toHaveLength(2 * iterations);
      expect(nodeSections).toHaveLength(4 * iterations);
      const all = [...javaSections, ...nodeSections];
      expect(findOverlaps([...all, { worker: 'gate', start: gateStart, end: gateEnd }])).toEqual([]);
      // They really contended. When we let go, each process had exactly one node in the queue, and
      // a process queues again only after its section, behind the others: the lock went to all six
      // in turn (both libraries grant the lowest sequence number), then on. So Java and Node
      // sections both come among the first six and both after them: the lock passed between a Java
      // and a Node holder at least twice.
      const byStart = [...all].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
      expect(new Set(byStart.slice(0, 6).map((s) => s.worker)).size).toBe(6);
      const crossings = handoffGaps(all).filter((h) => h.from.startsWith('java') !== h.to.startsWith('java'));
      expect(crossings.length).toBeGreaterThanOrEqual(2);
      expect(await children(path)).toEqual([]);
    } finally {
      await Promise.all(javas.map((java) => java.stop()));
    }
  }, 180_000);

  it('a holder killed with SIGKILL loses the lock when the server expires its session; the next waiter acquires', async () => {
    const path = `${root}/killed`;
    const sessionTimeoutMs = 2000;
    let releasedAt = 0;
    let holderPath = '';
    let holderTimeoutMs = 0;
    const waiterSession = await ZkSession.connect({ connectString: testConnectString() });
    try {
      const waiter = new InterProcessMutex(waiterSession, path);
      let next: Promise<{ handle: LockHandle; grantedAt: number; holderNode: unknown }> | undefined;
      await expect(
        runWorkers({
          script: worker,
          count: 1,
          args: [testConnectString(), path, '1', '600000', String(sessionTimeoutMs)],
          barrier: true,
          timeoutMs: 60_000,
          // Read before the holder is told to start: every request of its acquisition comes later.
          onRelease: () => (releasedAt = performance.now()),
          onLine: (line, result) => {
            const event = line as { type: string; path?: string; sessionTimeoutMs?: number };
            if (event.type !== 'acquired') return;
            holderPath = event.path!;
            holderTimeoutMs = event.sessionTimeoutMs!;
            next = waiter.acquire({ timeoutMs: 30_000 }).then(async (handle) => {
              const grantedAt = performance.now();
              // Read on the waiter's own session, so it sees at least what the grant was decided on.
              return { handle, grantedAt, holderNode: await waiterSession.exists(holderPath) };
            });
            // Let the waiter queue behind the holder, then kill the holder without any goodbye.
            void (async () => {
              await untilChildCount(observer, path, 2);
              process.kill(result.pid, 'SIGKILL');
            })();
          },
        }),
      ).rejects.toMatchObject({ code: 'WORKERS_FAILED' });
      const { handle, grantedAt, holderNode } = await next!;
      // The waiter was granted only once the holder's node was gone.
      expect(holderNode).toBeNull();
      // And the node went when the server expired the holder's session, which it does no sooner
      // than the session timeout after the last request it read from the holder (rounded up to
      // its tick), and that request came after the release. (Counted from the kill instead, the
      // bound does not hold: the holder's last request, a ping every third of the timeout when
      // idle, may precede the kill by a third of the timeout and more on a busy machine.)
      expect(holderTimeoutMs).toBeGreaterThan(0);
      expect(grantedAt - releasedAt).toBeGreaterThanOrEqual(holderTimeoutMs);
      expect(await children(path)).toEqual([handle.path.split('/').pop()]);
      expect(handle.path).not.toBe(holderPath);
      await handle.release();
    } finally {
      await waiterSession.close();
    }
  });
});
