/**
 * The semaphore across a leader crash: eight OS processes, each with its own session on a
 * 3-server ensemble, loop on a 3-lease semaphore while the ensemble's leader is killed (SIGKILL)
 * mid-run. Sessions outlive the election, so no lease is lost: never more than 3 leases at once,
 * every iteration completes, leases keep being taken after the election, no node stays behind.
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
  // tickTime 500 ms allows sessions of up to 10 s (the worker asks for 10 s): room for an election.
  cluster = await TestingCluster.start({ size: 3, tickTimeMs: 500 });
}, 120_000);

afterAll(async () => {
  for (const worker of started) worker.kill();
  await cluster?.stop();
});

describe('InterProcessSemaphore on a 3-server ensemble', () => {
  it('8 processes, 3 leases: never more than 3 while the leader is killed mid-run; every iteration done, no node left', async () => {
    const path = `${root}/leader-killed`;
    const processes = 8;
    const iterations = 15;
    const workers = Array.from({ length: processes }, () =>
      spawnNodeWorker(SEMAPHORE_WORKER, ['--wait-go', cluster.connectString, path, '3', String(iterations), '10']),
    );
    started.push(...workers);
    await Promise.all(workers.map((w) => w.waitForLine((l) => l.type === 'ready')));
    for (const w of workers) w.go();

    // Kill the leader once the first process is a third of the way through.
    await workers[0]!.waitForLine((l) => l.type === 'section' && l['i'] === 4);
    const leader = await cluster.leader();
    const killedAt = process.hrtime.bigint();
    await leader.kill();
    const outputs = await Promise.all(workers.map((w) => w.finished()));

    const sections = sectionsOf(outputs.flat());
    expect(sections).toHaveLength(processes * iterations);
    expect(outputs.every((lines) => lines.some((l) => l.type === 'done' && l['iterations'] === iterations))).toBe(true);
    expect(maxConcurrency(sections)).toBeLessThanOrEqual(3);
    // The crash hit the run in its middle: leases were taken on both sides of it.
    expect(sections.filter((s) => s.end < killedAt).length).toBeGreaterThanOrEqual(5);
    expect(sections.filter((s) => s.start > killedAt).length).toBeGreaterThan(processes);

    const observer = await ZkSession.connect({ connectString: cluster.connectString });
    try {
      expect((await observer.getChildren(path)).children).toEqual([]);
    } finally {
      await observer.close();
    }
  }, 120_000);
});
