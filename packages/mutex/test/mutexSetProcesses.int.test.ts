/**
 * MutexSet across OS processes: many keys at once, each process many concurrent tasks on one set,
 * every critical section recorded with its key and checked for overlaps per key.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockKeyPath, ZkSession } from '@zk-recipes/core';
import { childrenOf, findOverlaps, handoffGaps, intervalFromJson, runWorkers, testConnectString, uniqueRoot, type Interval } from '@zk-recipes/testing';

const worker = fileURLToPath(new URL('./workers/mutexSetWorker.ts', import.meta.url));
const root = uniqueRoot('mutex-set-processes');
let observer: ZkSession;

beforeAll(async () => {
  observer = await ZkSession.connect({ connectString: testConnectString() });
});
afterAll(async () => {
  await observer.close();
});

interface SectionLine {
  type: 'section';
  worker: string;
  key: string;
  start: string;
  end: string;
  token: string;
}

describe('MutexSet across OS processes', () => {
  it.each([
    ['idle locks kept', undefined],
    ['idle locks dropped at once (maxIdleLocks 0)', '0'],
  ])('4 processes x 8 tasks on 30 keys never overlap on a key; fencing tokens grow per key (%s)', async (_name, maxIdleLocks) => {
    const base = `${root}/orders-${maxIdleLocks ?? 'kept'}`;
    const iterations = 20;
    const results = await runWorkers({
      script: worker,
      count: 4,
      args: [testConnectString(), base, '30', '8', String(iterations), '2', ...(maxIdleLocks === undefined ? [] : [maxIdleLocks])],
      barrier: true,
      timeoutMs: 180_000,
    });
    const lines = results.flatMap((r) => r.lines as SectionLine[]).filter((line) => line.type === 'section');
    expect(lines).toHaveLength(4 * 8 * iterations);
    const byKey = new Map<string, Array<Interval & { token: bigint }>>();
    for (const line of lines) {
      const sections = byKey.get(line.key) ?? [];
      sections.push({ ...intervalFromJson(line), token: BigInt(line.token) });
      byKey.set(line.key, sections);
    }
    expect(byKey.size).toBeGreaterThan(20);
    let crossings = 0;
    for (const [key, sections] of byKey) {
      expect(findOverlaps(sections), `exclusion of key ${key}`).toEqual([]);
      const ordered = [...sections].sort((a, b) => (a.start < b.start ? -1 : 1));
      for (let i = 1; i < ordered.length; i++) expect(ordered[i]!.token, `fencing tokens of key ${key}`).toBeGreaterThan(ordered[i - 1]!.token);
      crossings += handoffGaps(sections).filter((h) => h.from.split('/')[0] !== h.to.split('/')[0]).length;
    }
    // Keys really passed between processes.
    expect(crossings).toBeGreaterThan(10);
    // Every key's directory is empty: no node left behind.
    for (const key of byKey.keys()) expect(await childrenOf(observer, lockKeyPath(base, key))).toEqual([]);
  });
});
