import { describe, expect, it } from 'vitest';
import { formatAge } from '../src/render/age.js';
import { table } from '../src/render/table.js';

describe('table', () => {
  it('pads each column to its widest cell, three spaces apart, no trailing spaces', () => {
    expect(table(['NAME', 'AGE', 'LABEL'], [['a', '12s', ''], ['longer-name', '3m04s', 'x']])).toBe(
      ['NAME          AGE     LABEL', 'a             12s', 'longer-name   3m04s   x'].join('\n'),
    );
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
