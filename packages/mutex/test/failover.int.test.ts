/**
 * The mutex across a leader failure: four OS processes, each with its own session on a 3-server
 * ensemble, contend for one mutex while the ensemble's leader is killed (SIGKILL), or paused
 * (SIGSTOP) until the others elect a new leader, in the middle of the run. Sessions outlive the
 * election (their timeout is longer), so no holder loses its node: the critical sections must
 * never overlap, every iteration must complete, the lock must keep moving between processes
 * after the new leader is elected, and no node may stay behind.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZkSession } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';
import {
  childrenOf,
  findOverlaps,
  pollUntil,
  handoffGaps,
  sectionIntervals,
  runWorkers,
  TestingCluster,
  uniqueRoot,
  type WorkerResult,
} from '@zk-recipes/testing';

const worker = fileURLToPath(new URL('./workers/mutexWorker.ts', import.meta.url));
const root = uniqueRoot('mutex-failover');
let cluster: TestingCluster;

beforeAll(async () => {
  // Default tickTime (200 ms): followers give up on a hung leader after syncLimit (10 ticks, 2 s),
  // well inside the workers' 10 s sessions.
  cluster = await TestingCluster.start({ size: 3 });
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
});

describe('InterProcessMutex on a 3-server ensemble', () => {
  it.each([
    ['killed (SIGKILL)', 'kill'],
    ['paused (SIGSTOP) until a new leader is elected', 'pause'],
  ] as const)(
    '4 processes keep mutual exclusion while the leader is %s mid-run; every iteration completes, no node left',
    async (_, fault) => {
      const path = `${root}/leader-${fault}`;
      const processes = 4;
      const iterations = 60;
      const faultAfter = 30; // sections, out of 240
      let sectionsSeen = 0;
      let failed: Promise<bigint> | undefined;
      let results: WorkerResult[];
      try {
        results = await runWorkers({
          script: worker,
          count: processes,
          args: [cluster.connectString, path, String(iterations), '3', '10000'],
          barrier: true,
          timeoutMs: 120_000,
          onLine: (line) => {
            if ((line as { type: string }).type === 'section' && ++sectionsSeen === faultAfter) failed = cluster.failLeader(fault);
          },
        });
      } finally {
        // Whatever happened to the workers, the ensemble is whole again before the next test.
        await failed;
      }
      const electedAt = await failed;
      const sections = sectionIntervals(results.flatMap((r) => r.lines));
      expect(sections).toHaveLength(processes * iterations);
      expect(findOverlaps(sections)).toEqual([]);
      // The work went on under the new leader, and the lock still moved between processes there.
      expect(electedAt).toBeDefined();
      const afterElection = sections.filter((s) => s.start > electedAt!);
      expect(new Set(afterElection.map((s) => s.worker)).size).toBeGreaterThanOrEqual(2);
      expect(handoffGaps(afterElection).filter((h) => h.from !== h.to).length).toBeGreaterThan(0);

      const observer = await ZkSession.connect({ connectString: cluster.connectString });
      try {
        expect(await childrenOf(observer, path)).toEqual([]);
      } finally {
        await observer.close();
      }
    },
    120_000,
  );

  it(
    '50 acquisitions in flight while the leader is killed: none fails with CONNECTION_LOSS, all are granted, no node left',
    async () => {
      const base = `${root}/burst`;
      const session = await ZkSession.connect({ connectString: cluster.connectString, sessionTimeoutMs: 10_000 });
      const other = await ZkSession.connect({ connectString: cluster.connectString, sessionTimeoutMs: 10_000 });
      try {
        // Half queue behind a holder of one lock; half take fresh locks, whose directories are
        // created on the way: every step of an acquisition has requests in flight at the kill.
        const shared = `${base}/shared`;
        const blocker = await new InterProcessMutex(other, shared).acquire();
        const failed = cluster.failLeader('kill');
        const outcomes = await Promise.all([
          ...Array.from({ length: 50 }, (_, i) =>
            // Each in an async context of its own: independent contenders, not re-entries.
            (async () => new InterProcessMutex(session, i % 2 === 0 ? `${base}/fresh-${i}/lock` : shared).acquire({ timeoutMs: 60_000 }))().then(
              async (handle) => {
                await handle.release();
                return 'granted';
              },
              (err: unknown) => (err as { code?: string }).code ?? String(err),
            ),
          ),
          failed.then(async () => {
            await blocker.release();
            return 'blocker released';
          }),
        ]);
        expect(outcomes.filter((o) => o !== 'granted' && o !== 'blocker released').join(', ')).toBe('');
        // Every delete was acknowledged by a quorum, but the server `other` reads from may apply the
        // last ones a moment later (a busy machine): a node still there after the bound was left behind.
        const left = async (): Promise<string[]> => [...(await childrenOf(session, shared)), ...(await childrenOf(other, shared))];
        await pollUntil(async () => (await left()).length === 0, 15_000, 'every server to show the queue empty').catch(() => undefined);
        expect((await left()).join(', '), 'nodes left behind').toBe('');
      } finally {
        await session.close();
        await other.close();
      }
    },
    120_000,
  );
});
