import { ZkSession } from '@zk-recipes/core';
import { runWorkers, testConnectString, uniqueRoot } from '@zk-recipes/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { runNodeWorker, workerScript } from './support/processes.js';
import { checkReadWrite, sectionsOf } from './support/sections.js';

const root = uniqueRoot('read-write-lock-processes');

afterAll(async () => {
  const session = await ZkSession.connect({ connectString: testConnectString() });
  await session.delete(`${root}/lock`).catch(() => undefined);
  await session.delete(root).catch(() => undefined);
  await session.close();
});

describe('InterProcessReadWriteLock across processes', () => {
  it('6 reader and 2 writer processes: no write overlaps anything, readers hold together', async () => {
    const path = `${root}/lock`;
    const readers = 6;
    const writers = 2;
    const readIterations = 15;
    const writeIterations = 10;
    // A common start once every process is connected, so the loops really contend (tsx start-up
    // takes seconds on two busy cores; a wall-clock start time may come before the last is up).
    const results = await runWorkers({
      script: workerScript('rwWorker.ts'),
      count: readers + writers,
      args: (i) => {
        const [mode, iterations] = i < readers ? ['read', readIterations] : ['write', writeIterations];
        return ['--wait-go', testConnectString(), path, mode, String(iterations), '2', 'zk-recipes'];
      },
      barrier: true,
      timeoutMs: 150_000,
    });
    const outputs = results.map((r) => r.lines);
    const sections = sectionsOf(outputs.flat());
    expect(sections.filter((s) => s.lock === 'read')).toHaveLength(readers * readIterations);
    expect(sections.filter((s) => s.lock === 'write')).toHaveLength(writers * writeIterations);
    expect(new Set(sections.map((s) => s.worker)).size).toBe(readers + writers);

    const report = checkReadWrite(sections);
    expect(report.writeOverlaps).toEqual([]);
    expect(report.maxConcurrentReaders).toBeGreaterThan(1);

    // Fencing tokens of successive writers only grow.
    const writes = outputs
      .flat()
      .filter((l) => (l as { type?: string; lock?: string }).type === 'section' && (l as { lock?: string }).lock === 'write')
      .map((l) => l as { start: string; token: string })
      .sort((a, b) => (BigInt(a.start) < BigInt(b.start) ? -1 : 1));
    for (let i = 1; i < writes.length; i++) expect(BigInt(writes[i]!.token)).toBeGreaterThan(BigInt(writes[i - 1]!.token));
  }, 180_000);

  // Item 1 of the liveness issue: a reader of the same process behind a writer that downgrades was
  // never woken (10-15 reads in 10 s where another process made ~3,400). Every loop must finish
  // its iterations (no acquisition here has a timeout: a waiter left behind hangs the test).
  const MIX = ['read', 'read', 'write', 'downgrade'] as const;
  const ITERATIONS = 40;
  for (const layout of ['one process', 'one process per loop'] as const) {
    it(`readers, a writer and a downgrading writer, ${layout}: every loop finishes, no write overlaps anything`, async () => {
      const path = `${root}/mix-${layout.replaceAll(' ', '-')}`;
      const startAt = String(Date.now() + 3000);
      const run = (roles: readonly string[]) =>
        runNodeWorker(workerScript('mixWorker.ts'), [testConnectString(), path, roles.join(','), String(ITERATIONS), '1', startAt]);
      const outputs = layout === 'one process' ? [await run(MIX)] : await Promise.all(MIX.map((role) => run([role])));
      const lines = outputs.flat();
      const done = lines.filter((l) => (l as { type?: string }).type === 'done') as Array<{ loops: Record<string, number> }>;
      const loops = Object.assign({}, ...done.map((d) => d.loops)) as Record<string, number>;
      expect(Object.values(loops)).toEqual(MIX.map(() => ITERATIONS));
      const sections = sectionsOf(lines);
      // A downgrade is one write section and one read section.
      expect(sections.filter((x) => x.lock === 'write')).toHaveLength(2 * ITERATIONS);
      expect(sections.filter((x) => x.lock === 'read')).toHaveLength(2 * ITERATIONS + ITERATIONS / 2);
      expect(checkReadWrite(sections).writeOverlaps).toEqual([]);
      const session = await ZkSession.connect({ connectString: testConnectString() });
      try {
        // Nothing left behind (the directory is a container: the server may have removed it already).
        const left = await session.getChildren(path).then(
          (r) => r.children,
          (err: unknown) => ((err as { code?: string }).code === 'NO_NODE' ? [] : Promise.reject(err)),
        );
        expect(left).toEqual([]);
      } finally {
        await session.close();
      }
    }, 120_000);
  }
});
