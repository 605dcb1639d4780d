import { describe, expect, it } from 'vitest';
import type { Contender, LockSnapshot } from '../src/lock/LockSnapshot.js';
import { formatAge } from '../src/render/age.js';
import { summaryOf } from '../src/render/lsText.js';
import { table } from '../src/render/table.js';

/** More rows than a function call takes arguments (~120,000 in V8): no `Math.max(...cells)`. */
const MANY = 200_000;

describe('table', () => {
  it('pads each column to its widest cell, three spaces apart, no trailing spaces', () => {
    expect(table(['NAME', 'AGE', 'LABEL'], [['a', '12s', ''], ['longer-name', '3m04s', 'x']])).toBe(
      ['NAME          AGE     LABEL', 'a             12s', 'longer-name   3m04s   x'].join('\n'),
    );
  });

  it(`lays out ${MANY} rows`, () => {
    const rows = Array.from({ length: MANY }, (_, i) => [String(i), 'x']);
    expect(table(['N', 'X'], rows).split('\n').at(-1)).toBe(`${MANY - 1}   x`);
  });
});

describe('summaryOf', () => {
  it(`the oldest of ${MANY} holders`, () => {
    const contender = (createdAt: string): Contender => ({ node: 'n', path: '/p/n', sequence: 0, kind: 'lease', role: 'holder', leases: 1, sessionId: null, createdAt, ageMs: 0, owner: null, id: null });
    const contenders = Array.from({ length: MANY }, () => contender('2026-01-01T00:00:01.000Z'));
    contenders[7] = contender('2026-01-01T00:00:00.000Z');
    const lock: LockSnapshot = { format: 1, path: '/p', takenAt: '', exists: true, recipe: 'semaphore', layout: 'queue', maxLeases: MANY, leader: null, holders: MANY, waiters: 0, contenders };
    expect(summaryOf(lock, Date.parse('2026-01-01T00:00:05.000Z')).oldestHolderAgeMs).toBe(5000);
  });
});

describe('formatAge', () => {
  it.each([
    [0, '0ms'],
    [999, '999ms'],
    [1000, '1s'],
    [59_999, '59s'],
    [60_000, '1m00s'],
    [3_599_000, '59m59s'],
    [3_600_000, '1h00m'],
    [86_399_000, '23h59m'],
    [86_400_000, '1d00h'],
    [3 * 86_400_000 + 4 * 3_600_000, '3d04h'],
  ])('%d ms is %s', (ms, text) => {
    expect(formatAge(ms)).toBe(text);
  });
});
