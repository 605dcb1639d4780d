import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZkSession } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';
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
    const javas = await Promise.all([1, 2].map(() => spawnCuratorWorker(['mutex', testConnectString(), path, String(iterations), '2'])));
    try {
      const results = await runWorkers({ script: worker, count: 4, args: [testConnectString(), path, String(iterations), '2'], barrier: true, timeoutMs: 120_000 });
      await Promise.all(javas.map((java) => java.finished(120_000)));
      const javaSections: Interval[] = javas.flatMap((java) => java.sections().map((s) => ({ worker: s.worker, start: s.start, end: s.end })));
      const nodeSections = sectionsOf(results);
      expect(javaSections).toHaveLength(2 * iterations);
      expect(nodeSections).toHaveLength(4 * iterations);
      const all = [...javaSections, ...nodeSections];
      expect(findOverlaps(all)).toEqual([]);
      // They really contended: the lock passed between a Java and a Node holder.
      const crossings = handoffGaps(all).filter((h) => h.from.startsWith('java') !== h.to.startsWith('java'));
      expect(crossings.length).toBeGreaterThan(0);
      expect(await children(path)).toEqual([]);
    } finally {
      await Promise.all(javas.map((java) => java.stop()));
    }
  });

  it('a holder killed with SIGKILL loses the lock after its session timeout; the next waiter acquires', async () => {
    const path = `${root}/killed`;
    const sessionTimeoutMs = 2000;
    let killedAt = 0;
    let holderPath = '';
    const waiterSession = await ZkSession.connect({ connectString: testConnectString() });
    try {
      const waiter = new InterProcessMutex(waiterSession, path);
      let next: Promise<unknown> | undefined;
      await expect(
        runWorkers({
          script: worker,
          count: 1,
          args: [testConnectString(), path, '1', '600000', String(sessionTimeoutMs)],
          barrier: true,
          timeoutMs: 60_000,
          onLine: (line, result) => {
            const event = line as { type: string; path?: string };
            if (event.type !== 'acquired') return;
            holderPath = event.path!;
            next = waiter.acquire({ timeoutMs: 30_000 });
            // Let the waiter queue behind the holder, then kill the holder without any goodbye.
            void (async () => {
              await untilChildCount(observer, path, 2);
              killedAt = Date.now();
              process.kill(result.pid, 'SIGKILL');
            })();
          },
        }),
      ).rejects.toMatchObject({ code: 'WORKERS_FAILED' });
      const handle = (await next) as { path: string; release(): Promise<void> };
      const waited = Date.now() - killedAt;
      // The server removes the dead session's node only when the session times out.
      expect(waited).toBeGreaterThanOrEqual(sessionTimeoutMs * 0.9);
      expect(await children(path)).toEqual([handle.path.split('/').pop()]);
      expect(handle.path).not.toBe(holderPath);
      await handle.release();
    } finally {
      await waiterSession.close();
    }
  });
});
