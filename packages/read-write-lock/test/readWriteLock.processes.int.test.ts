import { ZkSession } from '@zk-recipes/core';
import { testConnectString, uniqueRoot } from '@zk-recipes/testing';
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
    // A common start, so the loops really contend (tsx start-up takes a while on two cores).
    const startAt = String(Date.now() + 4000);
    const run = (mode: 'read' | 'write', iterations: number) =>
      runNodeWorker(workerScript('rwWorker.ts'), [testConnectString(), path, mode, String(iterations), '2', 'zk-recipes', startAt]);
    const outputs = await Promise.all([
      ...Array.from({ length: readers }, () => run('read', readIterations)),
      ...Array.from({ length: writers }, () => run('write', writeIterations)),
    ]);
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
  });
});
