import { ZkSession } from '@zk-recipes/core';
import { testConnectString, uniqueRoot } from '@zk-recipes/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { SEMAPHORE_WORKER, spawnNodeWorker, type NodeWorker } from './support/processes.js';
import { maxConcurrency, sectionsOf, timeAtConcurrency } from './support/sections.js';

const root = uniqueRoot('semaphore-processes');
const started: NodeWorker[] = [];

afterAll(() => {
  for (const worker of started) worker.kill();
});

describe('InterProcessSemaphore across OS processes', () => {
  it('12 processes, 3 leases: never more than 3 at once, 3 seen together, every iteration done, no node left', async () => {
    const path = `${root}/twelve`;
    const processes = 12;
    const iterations = 12;
    // Holds long enough that admitting three waiters one after another (a notification and a
    // round trip each) fits inside one hold even on a loaded 2-core machine; throughput with
    // short holds is the benchmark's business.
    const workers = Array.from({ length: processes }, () =>
      spawnNodeWorker(SEMAPHORE_WORKER, ['--wait-go', testConnectString(), path, '3', String(iterations), '25']),
    );
    started.push(...workers);
    // Start together: process start-up on a small machine takes longer than the whole run.
    await Promise.all(workers.map((w) => w.waitForLine((l) => l.type === 'ready')));
    for (const w of workers) w.go();
    const outputs = await Promise.all(workers.map((w) => w.finished()));

    const sections = sectionsOf(outputs.flat());
    expect(sections).toHaveLength(processes * iterations);
    expect(outputs.every((lines) => lines.some((l) => l.type === 'done' && l['iterations'] === iterations))).toBe(true);
    expect(maxConcurrency(sections)).toBe(3);
    expect(timeAtConcurrency(sections, 3)).toBeGreaterThan(0n);

    const session = await ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs: 4000 });
    try {
      expect((await session.getChildren(path)).children).toEqual([]);
    } finally {
      await session.close();
    }
  }, 120_000);
});
