import { describe, expect, it } from 'vitest';
import { timerDelayMs, tooLongForATimer } from '../../src/retry/timerLimit.js';
import { MAX_TIMER_MS } from '../../src/session/options.js';

describe('timerDelayMs: a policy delay as a timer can take it', () => {
  it.each([
    ['a delay a timer holds', 250, 250],
    ['the longest a timer holds', MAX_TIMER_MS, MAX_TIMER_MS],
    ['one ms more than a timer holds', MAX_TIMER_MS + 1, MAX_TIMER_MS],
    ['3e9 ms', 3e9, MAX_TIMER_MS],
    ['Infinity', Number.POSITIVE_INFINITY, MAX_TIMER_MS],
    ['0', 0, 0],
    ['a negative', -5, 0],
    ['-Infinity', Number.NEGATIVE_INFINITY, 0],
    ['NaN', Number.NaN, 0],
  ])('%s', (_what, delay, expected) => {
    expect(timerDelayMs(delay)).toBe(expected);
  });

  it('the refusal names the option and the maximum', () => {
    expect(tooLongForATimer('sleepMs')).toBe('sleepMs must be at most 2147483647 ms (about 24.8 days): a longer timer cannot be set');
  });
});
