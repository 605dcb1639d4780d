/**
 * The mutex across a leader failure: four OS processes, each with its own session on a 3-server
 * ensemble, contend for one mutex while the ensemble's leader is killed (SIGKILL), or paused
 * (SIGSTOP) until the others elect a new leader, in the middle of the run. Sessions outlive the
 * election (their timeout is longer), so no holder loses its node: the critical sections must
 * never overlap, every iteration must complete, the lock must keep moving between processes
 * after the election, and no node may stay behind.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZkSession } from '@zk-recipes/core';
import {
  childrenOf,
  findOverlaps,
  handoffGaps,
  intervalFromJson,
  runWorkers,
  TestingCluster,
  uniqueRoot,
  type Interval,
} from '@zk-recipes/testing';

const worker = fileURLToPath(new URL('./workers/mutexWorker.ts', import.meta.url));
const root = uniqueRoot('mutex-failover');
let cluster: TestingCluster;

beforeAll(async () => {
  // tickTime 500 ms allows sessions of up to 10 s. Followers give up on a paused leader after
  // syncLimit ticks (2 s here, not the default 5 s), so the election and the old leader's
  // resumption (which closes its client connections) come well inside the workers' 10 s sessions.
  cluster = await TestingCluster.start({ size: 3, tickTimeMs: 500, extraConfig: { syncLimit: '4' } });
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
});

describe('InterProcessMutex on a 3-server ensemble', () => {
  it.each(['killed (SIGKILL)', 'paused (SIGSTOP) until a new leader is elected'] as const)(
    '4 processes keep mutual exclusion while the leader is %s mid-run; every iteration completes, no node left',
    async (fault) => {
      const path = `${root}/leader-${fault.split(' ')[0]}`;
      const processes = 4;
      const iterations = 30;
      const faultAfter = 30; // sections, out of 120
      let sectionsSeen = 0;
      let faultAt: bigint | undefined;
      let faulted: Promise<void> | undefined;
      const results = await runWorkers({
        script: worker,
        count: processes,
        args: [cluster.connectString, path, String(iterations), '3', '10000'],
        barrier: true,
        timeoutMs: 120_000,
        onLine: (line) => {
          if ((line as { type: string }).type !== 'section' || ++sectionsSeen !== faultAfter) return;
          faulted = (async () => {
            const leader = await cluster.leader();
            faultAt = process.hrtime.bigint();
            if (fault === 'killed (SIGKILL)') {
              await leader.kill();
              await leader.restart();
            } else {
              await leader.pause();
              // Only members that answer can be named: the paused one cannot.
              expect(await cluster.leader()).not.toBe(leader);
              await leader.resume();
            }
          })();
        },
      });
      await faulted;
      const sections: Interval[] = results.flatMap((r) =>
        (r.lines as Array<{ type: string; worker: string; start: string; end: string }>)
          .filter((l) => l.type === 'section')
          .map((l) => intervalFromJson(l)),
      );
      expect(sections).toHaveLength(processes * iterations);
      expect(findOverlaps(sections)).toEqual([]);
      // The failure hit a contended run: sections on both sides of it, and after it the lock
      // still moved between processes.
      expect(faultAt).toBeDefined();
      const after = sections.filter((s) => s.start > faultAt!);
      expect(after.length).toBeGreaterThan(0);
      expect(sections.length - after.length).toBeGreaterThanOrEqual(faultAfter);
      expect(handoffGaps(after).filter((h) => h.from !== h.to).length).toBeGreaterThan(processes);

      const observer = await ZkSession.connect({ connectString: cluster.connectString });
      try {
        expect(await childrenOf(observer, path)).toEqual([]);
      } finally {
        await observer.close();
      }
    },
    120_000,
  );
});
