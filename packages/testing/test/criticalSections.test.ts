import { describe, expect, it } from 'vitest';
import {
  findOverlaps,
  handoffGaps,
  intervalFromJson,
  intervalToJson,
  maxConcurrency,
  sectionIntervals,
  timeSection,
  type Interval,
} from '../src/criticalSections.js';

const iv = (worker: string, start: number, end: number): Interval => ({ worker, start: BigInt(start), end: BigInt(end) });

describe('findOverlaps', () => {
  it('finds nothing in a clean sequence, including sections that touch', () => {
    expect(findOverlaps([iv('a', 0, 10), iv('b', 10, 20), iv('a', 25, 30)])).toEqual([]);
    expect(findOverlaps([])).toEqual([]);
  });

  it('reports the period and the sections of a mutex violation, in any input order', () => {
    const a = iv('a', 0, 10);
    const b = iv('b', 5, 15);
    const c = iv('c', 20, 30);
    const overlaps = findOverlaps([c, b, a]);
    expect(overlaps).toHaveLength(1);
    expect(overlaps[0]).toEqual({ start: 5n, end: 10n, concurrent: 2, intervals: [a, b] });
  });

  it('merges a chain of overlaps into one period and counts the peak', () => {
    const sections = [iv('a', 0, 10), iv('b', 5, 20), iv('c', 8, 25), iv('d', 30, 40)];
    const overlaps = findOverlaps(sections);
    expect(overlaps).toHaveLength(1);
    expect(overlaps[0]!.start).toBe(5n);
    expect(overlaps[0]!.end).toBe(20n);
    expect(overlaps[0]!.concurrent).toBe(3);
    expect(overlaps[0]!.intervals.map((i) => i.worker).sort()).toEqual(['a', 'b', 'c']);
  });

  it('ends a period as soon as the count is back within the limit', () => {
    const overlaps = findOverlaps([iv('a', 0, 10), iv('b', 5, 20), iv('c', 8, 12), iv('d', 18, 25)]);
    expect(overlaps.map((o) => [o.start, o.end, o.concurrent])).toEqual([
      [5n, 12n, 3],
      [18n, 20n, 2],
    ]);
  });

  it('separates distinct violations', () => {
    expect(findOverlaps([iv('a', 0, 10), iv('b', 5, 15), iv('c', 100, 110), iv('d', 105, 120)]).map((o) => [o.start, o.end])).toEqual([
      [5n, 10n],
      [105n, 110n],
    ]);
  });

  it('allows up to maxConcurrent (a semaphore) and flags the excess', () => {
    const sections = [iv('a', 0, 10), iv('b', 0, 10), iv('c', 10, 20), iv('d', 12, 18)];
    expect(findOverlaps(sections, { maxConcurrent: 2 })).toEqual([]);
    const tooMany = findOverlaps([...sections, iv('e', 15, 16)], { maxConcurrent: 2 });
    expect(tooMany).toEqual([{ start: 15n, end: 16n, concurrent: 3, intervals: [sections[2], sections[3], expect.objectContaining({ worker: 'e' })] }]);
  });

  it('flags identical sections and zero-length sections inside another', () => {
    expect(findOverlaps([iv('a', 0, 10), iv('b', 0, 10)])).toHaveLength(1);
    expect(findOverlaps([iv('a', 0, 10), iv('b', 5, 5)])).toHaveLength(1);
  });

  it('rejects nonsense', () => {
    expect(() => findOverlaps([iv('a', 10, 5)])).toThrow(RangeError);
    expect(() => findOverlaps([], { maxConcurrent: 0 })).toThrow(RangeError);
  });

  it('accepts sections without a worker name', () => {
    expect(findOverlaps([{ start: 1n, end: 3n }, { start: 2n, end: 4n }])).toHaveLength(1);
  });
});

describe('maxConcurrency', () => {
  it('counts the peak; touching does not add up', () => {
    expect(maxConcurrency([])).toBe(0);
    expect(maxConcurrency([iv('a', 0, 10), iv('b', 10, 20)])).toBe(1);
    expect(maxConcurrency([iv('a', 0, 10), iv('b', 1, 20), iv('c', 2, 3), iv('d', 15, 30)])).toBe(3);
  });
});

describe('handoffGaps', () => {
  it('measures end-to-next-start in start order, negative when they overlap', () => {
    const gaps = handoffGaps([iv('b', 12, 20), iv('a', 0, 10), iv('a', 19, 25)]);
    expect(gaps).toEqual([
      { from: 'a', to: 'b', gapNs: 2n },
      { from: 'b', to: 'a', gapNs: -1n },
    ]);
    expect(handoffGaps([iv('a', 0, 1)])).toEqual([]);
  });
});

describe('timeSection and JSON transport', () => {
  it('measures on the monotonic clock and round-trips through JSON', async () => {
    const before = process.hrtime.bigint();
    const { result, interval } = await timeSection('w1', async () => 42);
    const after = process.hrtime.bigint();
    expect(result).toBe(42);
    expect(interval.start).toBeGreaterThanOrEqual(before);
    expect(interval.end).toBeLessThanOrEqual(after);
    expect(interval.end).toBeGreaterThanOrEqual(interval.start);
    const json = JSON.parse(JSON.stringify(intervalToJson(interval))) as Parameters<typeof intervalFromJson>[0];
    expect(intervalFromJson(json)).toEqual(interval);
    expect(intervalFromJson({ worker: 'java', start: 5, end: 7 })).toEqual(iv('java', 5, 7));
  });

  it('sectionIntervals keeps the section lines of workers\' output, in order, and skips the rest', () => {
    const lines = [
      { type: 'ready' },
      { type: 'section', worker: 'w1', start: '10', end: '20' },
      'not json',
      null,
      { type: 'acquired', worker: 'w1', start: '10' },
      { type: 'section', worker: 'java-1', start: 30, end: 40 },
    ];
    expect(sectionIntervals(lines)).toEqual([iv('w1', 10, 20), iv('java-1', 30, 40)]);
  });
});
