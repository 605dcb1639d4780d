import { describe, expect, it } from 'vitest';
import { RetriesExhaustedError, SessionLostError, ZkRecipesError } from '../../src/errors.js';
import {
  boundedExponentialBackoff,
  exponentialBackoff,
  policyName,
  retryForever,
  retryNTimes,
  retryOneTime,
  retryUntilElapsed,
  RetryBudget,
  sessionFailedRetryPolicy,
  type RetryPolicy,
} from '../../src/retry/index.js';

function clock(): { now: () => number; advance: (ms: number) => void } {
  let t = 1_000;
  return { now: () => t, advance: (ms) => (t += ms) };
}

describe('RetryBudget: one count and one clock for every step of an operation', () => {
  it('passes the failures so far and the time since the start to the policy', () => {
    const seen: Array<[number, number]> = [];
    const policy: RetryPolicy = {
      nextDelayMs(retryCount, elapsedMs) {
        seen.push([retryCount, elapsedMs]);
        return 7;
      },
    };
    const time = clock();
    const budget = new RetryBudget(policy, 'lock /a', { now: time.now });
    expect(budget.delayAfter(new Error('one'))).toBe(7);
    time.advance(250);
    expect(budget.delayAfter(new Error('two'))).toBe(7);
    expect(seen).toEqual([
      [0, 0],
      [1, 250],
    ]);
    expect(budget.attempts).toBe(2);
  });

  it('ends retryNTimes after n retries with RETRIES_EXHAUSTED naming the policy, the attempts and the last failure', () => {
    const budget = new RetryBudget(retryNTimes({ n: 2, sleepMs: 10 }), 'lock /a', { now: clock().now });
    const failures = [new Error('a'), new Error('b'), new Error('c')];
    expect(budget.delayAfter(failures[0])).toBe(10);
    expect(budget.delayAfter(failures[1])).toBe(10);
    let thrown: unknown;
    try {
      budget.delayAfter(failures[2]);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(RetriesExhaustedError);
    expect(thrown).toMatchObject({ code: 'RETRIES_EXHAUSTED', policy: 'retryNTimes(n: 2, sleepMs: 10)', attempts: 3, cause: failures[2] });
    expect((thrown as Error).message).toBe('lock /a: retryNTimes(n: 2, sleepMs: 10) gave up after 3 failed attempts (last: c)');
  });

  it('ends retryUntilElapsed on the time since the operation began, not since the last failure', () => {
    const time = clock();
    const budget = new RetryBudget(retryUntilElapsed({ maxElapsedMs: 1_000, sleepMs: 100 }), 'lock /a', { now: time.now });
    time.advance(600);
    expect(budget.delayAfter(new Error('x'))).toBe(100);
    time.advance(600);
    expect(() => budget.delayAfter(new Error('y'))).toThrow(RetriesExhaustedError);
  });

  it('gives up at once on a lost session under sessionFailedRetryPolicy', () => {
    const budget = new RetryBudget(sessionFailedRetryPolicy(retryForever({ sleepMs: 5 })), 'lock /a', { now: clock().now });
    expect(budget.delayAfter(new ZkRecipesError('CONNECTION_LOSS', 'dropped'))).toBe(5);
    expect(() => budget.delayAfter(new SessionLostError('expired'))).toThrow(/sessionFailedRetryPolicy\(retryForever\(sleepMs: 5\)\) gave up after 2 failed attempts/);
  });

  it('bounds a custom policy\'s delay to what a timer can wait, and names it as custom', () => {
    const budget = new RetryBudget({ nextDelayMs: () => Number.NaN }, 'lock /a', { now: clock().now });
    expect(budget.delayAfter(new Error('x'))).toBe(0);
    const huge = new RetryBudget({ nextDelayMs: () => 2 ** 40 }, 'lock /a', { now: clock().now });
    expect(huge.delayAfter(new Error('x'))).toBe(2 ** 31 - 1);
    expect(() => new RetryBudget({ nextDelayMs: () => null }, 'lock /a').delayAfter(new Error('x'))).toThrow(/a custom retry policy gave up after 1 failed attempt \(/);
  });
});

describe('policy names', () => {
  it('say what each built-in policy is', () => {
    expect(policyName(exponentialBackoff({ baseSleepMs: 100, maxRetries: 10, maxSleepMs: 5000 }))).toBe('exponentialBackoff(baseSleepMs: 100, maxRetries: 10, maxSleepMs: 5000)');
    expect(policyName(boundedExponentialBackoff({ baseSleepMs: 10, maxSleepMs: 200, maxRetries: 3 }))).toBe('boundedExponentialBackoff(baseSleepMs: 10, maxRetries: 3, maxSleepMs: 200)');
    expect(policyName(retryOneTime({ sleepMs: 3 }))).toBe('retryOneTime(sleepMs: 3)');
    expect(policyName(retryForever({ sleepMs: 3 }))).toBe('retryForever(sleepMs: 3)');
    expect(policyName({ name: '', nextDelayMs: () => null })).toBe('a custom retry policy');
  });
});
