import { describe, expect, it } from 'vitest';
import { handoffLatenciesMs, maxConcurrency, percentile, timeAtConcurrency, type Section } from './support/sections.js';

const ms = (n: number) => BigInt(n) * 1_000_000n;
const s = (worker: string, start: number, end: number): Section => ({ worker, start: ms(start), end: ms(end) });

describe('section checker', () => {
  it('counts overlaps; touching sections do not overlap', () => {
    expect(maxConcurrency([s('a', 0, 10), s('b', 10, 20)])).toBe(1);
    expect(maxConcurrency([s('a', 0, 10), s('b', 5, 20), s('c', 6, 7)])).toBe(3);
    expect(timeAtConcurrency([s('a', 0, 10), s('b', 5, 20)], 2)).toBe(ms(5));
  });

  it('measures release → next holder while someone waits', () => {
    // c waits from its previous section's end (at 1); a releases at 10 and c starts at 13: 3 ms.
    const sections = [s('c', 0, 1), s('a', 0, 10), s('b', 0, 30), s('c', 13, 20)];
    expect(handoffLatenciesMs(sections)).toEqual([3]);
    // A release while nobody waits is not a handoff.
    expect(handoffLatenciesMs([s('a', 0, 10), s('b', 0, 30), s('b', 31, 32)])).toEqual([]);
    // A worker's own release and re-acquire is not a handoff either.
    expect(handoffLatenciesMs([s('a', 0, 10), s('a', 12, 14)])).toEqual([]);
  });

  it('takes percentiles by nearest rank', () => {
    expect(percentile([5, 1, 3, 2, 4], 50)).toBe(3);
    expect(percentile([5, 1, 3, 2, 4], 100)).toBe(5);
  });
});
