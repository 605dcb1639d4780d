/**
 * The randomised nemesis, short: four InterProcessMutex processes on a 3-server ensemble, each
 * behind its own fault proxies, under ~35 s of seeded random faults (kills, pauses, partitions of
 * both and of either direction, session expiries, an operator's deletes and foreign writes, leader
 * failures, stalled servers), then a calm tail. The checker (`checkHolds`) must find no two holders
 * at once, except where a fault takes the lock away without the holder being able to know first;
 * the lock must keep moving once the faults stop, and never stay free while someone waits for
 * longer than a bound (liveness: `idleBoundsFor`); and every acquisition must settle by its deadline
 * or abort plus the library's slack (`checkDeadlines`: a share of them have deadlines of 0.3-2 s).
 *
 * The seed is fixed (12: a schedule that has passed on this code) so that `npm run test:long` checks the same
 * attack every time; `NEMESIS_SEED=<seed>` runs another, and `NEMESIS_SEED=random` a random one
 * (printed). Who holds when a fault fires still depends on timing. Long runs, with random seeds:
 * `npm run test:nemesis -- --seed S --minutes M`.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeNemesis, NEMESIS_CLUSTER, randomSeed, runNemesis, TestingCluster, uniqueRoot } from '@zk-recipes/testing';

const worker = fileURLToPath(new URL('./workers/nemesisWorker.ts', import.meta.url));
const chosen = process.env['NEMESIS_SEED'];
const seed = chosen === 'random' ? randomSeed() : chosen ? Number(chosen) : 12;
const processes = 4;
let cluster: TestingCluster;

beforeAll(async () => {
  cluster = await TestingCluster.start(NEMESIS_CLUSTER);
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
});

describe('InterProcessMutex under a randomised nemesis', () => {
  it(
    `${processes} processes, ~35 s of seeded faults on a 3-server ensemble: never two holders (seed ${seed}; replay with NEMESIS_SEED=${seed})`,
    async () => {
      const lines: string[] = [];
      const result = await runNemesis({
        seed,
        faultMs: 35_000,
        calmMs: 6_000,
        workers: processes,
        sessionTimeoutMs: 3_000,
        workerScript: worker,
        lockPath: `${uniqueRoot('mutex-nemesis')}/lock`,
        connectString: cluster.connectString,
        cluster,
        log: (line) => lines.push(line),
      });
      const summary = describeNemesis(result);
      console.log(`${summary}\nfault log:\n${lines.join('\n')}`);
      expect(result.overlaps, summary).toEqual([]);
      expect(result.problems, summary).toEqual([]);
      // Liveness: the lock kept moving once the faults stopped, and was never left free while
      // someone waited for longer than its bound (idleBoundMs: 500 ms plus what the faults acting
      // on the gap may cost, e.g. a killed holder's session timeout).
      expect(result.calmSections, summary).toBeGreaterThanOrEqual(processes);
      expect(result.idleViolations, summary).toEqual([]);
      // Deadlines: settled by the deadline or the abort + SETTLE_SLACK_MS + DEADLINE_TOLERANCE_MS
      // (the time the worker itself was stopped excepted), never granted later.
      expect(result.deadlineMisses, summary).toEqual([]);
      expect(result.deadlines.checked, summary).toBeGreaterThan(0);
      // The run really attacked: faults acted.
      expect(Object.values(result.counts).reduce((a, b) => a + b, 0)).toBeGreaterThan(5);
    },
    150_000,
  );
});
