/**
 * The randomised nemesis on the election, short: four LeaderLatch processes on a 3-server
 * ensemble, each behind its own fault proxies, under ~35 s of seeded random faults (kills, pauses,
 * partitions of both and of either direction, session expiries, an operator's deletes and foreign
 * writes, leader failures, stalled servers), then a calm tail. Each process records every
 * leadership from its grant to the earlier of its signal aborting and its giving it up (closing the
 * latch); the checker (`checkHolds`) must find no two leaders at once, except where a fault takes
 * leadership away without the leader being able to know first; the election must never stay
 * leaderless while someone waits for longer than its bound, and every wait must settle by its
 * deadline or abort. The worker is the one `npm run test:nemesis -- --recipe leader` runs
 * (scripts/nemesis-worker.ts). Seed 12 unless `NEMESIS_SEED` says otherwise (`random` included).
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeNemesis, NEMESIS_CLUSTER, randomSeed, runNemesis, TestingCluster, uniqueRoot } from '@zk-recipes/testing';

const worker = fileURLToPath(new URL('../../../scripts/nemesis-worker.ts', import.meta.url));
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

describe('LeaderLatch under a randomised nemesis', () => {
  it(
    `${processes} processes, ~35 s of seeded faults on a 3-server ensemble: never two leaders (seed ${seed}; replay with NEMESIS_SEED=${seed})`,
    async () => {
      const lines: string[] = [];
      const result = await runNemesis({
        seed,
        faultMs: 35_000,
        calmMs: 6_000,
        workers: processes,
        sessionTimeoutMs: 3_000,
        workerScript: worker,
        workerArgs: ['leader'],
        lockPath: `${uniqueRoot('leader-nemesis')}/election`,
        connectString: cluster.connectString,
        cluster,
        log: (line) => lines.push(line),
      });
      const summary = describeNemesis(result);
      console.log(`${summary}\nfault log:\n${lines.join('\n')}`);
      expect(result.overlaps, summary).toEqual([]);
      expect(result.problems, summary).toEqual([]);
      // Liveness: leadership kept moving once the faults stopped, and the election was never
      // leaderless while someone waited for longer than its bound (idleBoundMs).
      expect(result.calmSections, summary).toBeGreaterThanOrEqual(processes);
      expect(result.idleViolations, summary).toEqual([]);
      expect(result.deadlineMisses, summary).toEqual([]);
      expect(result.deadlines.checked, summary).toBeGreaterThan(0);
      // The run really attacked: faults acted.
      expect(Object.values(result.counts).reduce((a, b) => a + b, 0)).toBeGreaterThan(5);
    },
    150_000,
  );
});
