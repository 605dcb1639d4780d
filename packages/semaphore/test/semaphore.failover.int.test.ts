/**
 * The semaphore across a leader failure: eight OS processes, each with its own session on a
 * 3-server ensemble, loop on a 3-lease semaphore while the ensemble's leader is killed (SIGKILL),
 * or paused (SIGSTOP) until the others elect a new leader, mid-run. Sessions outlive the
 * election, so no lease is lost: never more than 3 leases at once, every iteration completes,
 * several processes take leases under the new leader, no node stays behind.
 */
import { ZkSession } from '@zk-recipes/core';
import { TestingCluster, uniqueRoot } from '@zk-recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEMAPHORE_WORKER, spawnNodeWorker, type NodeWorker } from './support/processes.js';
import { maxConcurrency, sectionsOf } from './support/sections.js';

const root = uniqueRoot('semaphore-failover');
const started: NodeWorker[] = [];
let cluster: TestingCluster;

beforeAll(async () => {
  // Default tickTime (200 ms): an election takes well under the workers' 10 s sessions.
  cluster = await TestingCluster.start({ size: 3 });
}, 120_000);

afterAll(async () => {
  for (const worker of started) worker.kill();
  await cluster?.stop();
});

describe('InterProcessSemaphore on a 3-server ensemble', () => {
  it.each([
    ['killed (SIGKILL)', 'kill'],
    ['paused (SIGSTOP) until a new leader is elected', 'pause'],
  ] as const)(
    '8 processes, 3 leases: never more than 3 while the leader is %s mid-run; every iteration done, no node left',
    async (_, fault) => {
      const path = `${root}/leader-${fault}`;
      const processes = 8;
      const iterations = 30;
      const workers = Array.from({ length: processes }, () =>
        spawnNodeWorker(SEMAPHORE_WORKER, ['--wait-go', cluster.connectString, path, '3', String(iterations), '10']),
      );
      started.push(...workers);
      await Promise.all(workers.map((w) => w.waitForLine((l) => l.type === 'ready')));
      for (const w of workers) w.go();

      // Fail the leader once the first process is a sixth of the way through.
      await workers[0]!.waitForLine((l) => l.type === 'section' && l['i'] === 4);
      const electedAt = await cluster.failLeader(fault);
      const outputs = await Promise.all(workers.map((w) => w.finished()));

      const sections = sectionsOf(outputs.flat());
      expect(sections).toHaveLength(processes * iterations);
      expect(outputs.every((lines) => lines.some((l) => l.type === 'done' && l['iterations'] === iterations))).toBe(true);
      expect(maxConcurrency(sections)).toBeLessThanOrEqual(3);
      // Leases went on being taken, by several processes, under the new leader.
      const afterElection = sections.filter((s) => s.start > electedAt);
      expect(new Set(afterElection.map((s) => s.worker)).size).toBeGreaterThanOrEqual(2);

      const observer = await ZkSession.connect({ connectString: cluster.connectString });
      try {
        expect((await observer.getChildren(path)).children).toEqual([]);
      } finally {
        await observer.close();
      }
    },
    120_000,
  );
});
