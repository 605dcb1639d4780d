import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, SessionLostError, ZkRecipesError } from '../../src/errors.js';
import {
  boundedExponentialBackoff,
  exponentialBackoff,
  retryForever,
  retryNTimes,
  retryOneTime,
  retryUntilElapsed,
  sessionFailedRetryPolicy,
  type RetryPolicy,
} from '../../src/retry/index.js';

const connectionLoss = new ZkRecipesError('CONNECTION_LOSS', 'connection lost');

function expectInvalid(fn: () => unknown, option: string): void {
  let thrown: unknown;
  try {
    fn();
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(InvalidArgumentError);
  expect((thrown as InvalidArgumentError).code).toBe('INVALID_ARGUMENT');
  expect((thrown as Error).message).toContain(option);
}

describe('exponentialBackoff', () => {
  it('retries maxRetries times and then gives up', () => {
    const p = exponentialBackoff({ baseSleepMs: 10, maxRetries: 3 });
    expect(p.nextDelayMs(0, 0, connectionLoss)).not.toBeNull();
    expect(p.nextDelayMs(2, 0, connectionLoss)).not.toBeNull();
    expect(p.nextDelayMs(3, 0, connectionLoss)).toBeNull();
  });

  it('sleeps base * k with k a random integer in [1, 2^(n+1)), a draw of 0 counting as 1', () => {
    const low = exponentialBackoff({ baseSleepMs: 10, maxRetries: 29, random: () => 0 });
    const high = exponentialBackoff({ baseSleepMs: 10, maxRetries: 29, random: () => 0.999999 });
    for (let n = 0; n < 10; n++) {
      expect(low.nextDelayMs(n, 0, connectionLoss)).toBe(10);
      expect(high.nextDelayMs(n, 0, connectionLoss)).toBe(10 * (2 ** (n + 1) - 1));
    }
    const mid = exponentialBackoff({ baseSleepMs: 5, maxRetries: 5, random: () => 0.5 });
    expect(mid.nextDelayMs(2, 0, connectionLoss)).toBe(5 * 4);
  });

  it('stays within bounds with real randomness', () => {
    const p = exponentialBackoff({ baseSleepMs: 3, maxRetries: 29 });
    for (let i = 0; i < 500; i++) {
      const n = i % 6;
      const d = p.nextDelayMs(n, 0, connectionLoss)!;
      expect(d % 3).toBe(0);
      expect(d).toBeGreaterThanOrEqual(3);
      expect(d).toBeLessThan(3 * 2 ** (n + 1));
    }
  });

  it('caps each delay at maxSleepMs', () => {
    const p = exponentialBackoff({ baseSleepMs: 100, maxRetries: 29, maxSleepMs: 250, random: () => 0.99 });
    expect(p.nextDelayMs(0, 0, connectionLoss)).toBe(100);
    expect(p.nextDelayMs(5, 0, connectionLoss)).toBe(250);
    expect(p.nextDelayMs(28, 0, connectionLoss)).toBe(250);
  });

  it('does not overflow at the highest retry count', () => {
    const p = exponentialBackoff({ baseSleepMs: 1, maxRetries: 29, random: () => 0.999999999 });
    const d = p.nextDelayMs(28, 0, connectionLoss)!;
    expect(Number.isSafeInteger(d)).toBe(true);
    expect(d).toBeLessThanOrEqual(2 ** 31 - 1);
  });

  it('rejects bad options, naming the option', () => {
    expectInvalid(() => exponentialBackoff({ baseSleepMs: 10, maxRetries: 30 }), 'maxRetries');
    expectInvalid(() => exponentialBackoff({ baseSleepMs: 0, maxRetries: 3 }), 'baseSleepMs');
    expectInvalid(() => exponentialBackoff({ baseSleepMs: 1.5, maxRetries: 3 }), 'baseSleepMs');
    expectInvalid(() => exponentialBackoff({ baseSleepMs: 10, maxRetries: -1 }), 'maxRetries');
    expectInvalid(() => exponentialBackoff({ baseSleepMs: 10, maxRetries: 3, maxSleepMs: -5 }), 'maxSleepMs');
    expectInvalid(() => exponentialBackoff({ baseSleepMs: 10 } as never), 'maxRetries');
    expectInvalid(() => exponentialBackoff({ baseSleepMs: 10, maxRetries: 3, bogus: 1 } as never), 'bogus');
    expectInvalid(() => exponentialBackoff(undefined as never), 'exponentialBackoff');
  });
});

describe('boundedExponentialBackoff', () => {
  it('caps at maxSleepMs and stops after maxRetries', () => {
    const p = boundedExponentialBackoff({ baseSleepMs: 10, maxSleepMs: 40, maxRetries: 4, random: () => 0.99 });
    expect([0, 1, 2, 3].map((n) => p.nextDelayMs(n, 0, connectionLoss))).toEqual([10, 30, 40, 40]);
    expect(p.nextDelayMs(4, 0, connectionLoss)).toBeNull();
  });

  it('requires maxSleepMs >= baseSleepMs', () => {
    expectInvalid(() => boundedExponentialBackoff({ baseSleepMs: 10, maxSleepMs: 5, maxRetries: 3 }), 'maxSleepMs');
    expectInvalid(() => boundedExponentialBackoff({ baseSleepMs: 10, maxRetries: 3 } as never), 'maxSleepMs');
    expectInvalid(() => boundedExponentialBackoff({ baseSleepMs: 10, maxSleepMs: 50, maxRetries: 30 }), 'maxRetries');
  });
});

describe('retryNTimes / retryOneTime', () => {
  it('retries n times with a fixed delay', () => {
    const p = retryNTimes({ n: 2, sleepMs: 7 });
    expect([0, 1, 2].map((n) => p.nextDelayMs(n, 1e9, connectionLoss))).toEqual([7, 7, null]);
  });

  it('n = 0 never retries', () => {
    expect(retryNTimes({ n: 0, sleepMs: 7 }).nextDelayMs(0, 0, connectionLoss)).toBeNull();
  });

  it('retryOneTime retries once', () => {
    const p = retryOneTime({ sleepMs: 3 });
    expect(p.nextDelayMs(0, 0, connectionLoss)).toBe(3);
    expect(p.nextDelayMs(1, 0, connectionLoss)).toBeNull();
  });

  it('rejects bad options', () => {
    expectInvalid(() => retryNTimes({ n: -1, sleepMs: 1 }), 'n');
    expectInvalid(() => retryNTimes({ n: 1, sleepMs: -1 }), 'sleepMs');
    expectInvalid(() => retryOneTime({ sleepMs: Number.NaN }), 'sleepMs');
    expectInvalid(() => retryOneTime({} as never), 'sleepMs');
  });
});

describe('retryUntilElapsed', () => {
  it('retries while less than maxElapsedMs has passed, whatever the count', () => {
    const p = retryUntilElapsed({ maxElapsedMs: 100, sleepMs: 10 });
    expect(p.nextDelayMs(0, 0, connectionLoss)).toBe(10);
    expect(p.nextDelayMs(1000, 99, connectionLoss)).toBe(10);
    expect(p.nextDelayMs(1, 100, connectionLoss)).toBeNull();
    expect(p.nextDelayMs(1, 150, connectionLoss)).toBeNull();
  });

  it('rejects bad options', () => {
    expectInvalid(() => retryUntilElapsed({ maxElapsedMs: -1, sleepMs: 1 }), 'maxElapsedMs');
    expectInvalid(() => retryUntilElapsed({ maxElapsedMs: 1 } as never), 'sleepMs');
  });
});

describe('retryForever', () => {
  it('always retries', () => {
    const p = retryForever({ sleepMs: 5 });
    expect(p.nextDelayMs(0, 0, connectionLoss)).toBe(5);
    expect(p.nextDelayMs(1_000_000, 1e12, connectionLoss)).toBe(5);
  });

  it('rejects bad options', () => {
    expectInvalid(() => retryForever({ sleepMs: '5' } as never), 'sleepMs');
  });
});

describe('every delay option: at most what a timer can wait (2^31-1 ms)', () => {
  const limit = 2 ** 31 - 1;
  it.each([
    ['retryNTimes sleepMs', (ms: number) => retryNTimes({ n: 1, sleepMs: ms }), 'sleepMs'],
    ['retryOneTime sleepMs', (ms: number) => retryOneTime({ sleepMs: ms }), 'sleepMs'],
    ['retryForever sleepMs', (ms: number) => retryForever({ sleepMs: ms }), 'sleepMs'],
    ['retryUntilElapsed sleepMs', (ms: number) => retryUntilElapsed({ maxElapsedMs: 1, sleepMs: ms }), 'sleepMs'],
    ['exponentialBackoff baseSleepMs', (ms: number) => exponentialBackoff({ baseSleepMs: ms, maxRetries: 1 }), 'baseSleepMs'],
    ['exponentialBackoff maxSleepMs', (ms: number) => exponentialBackoff({ baseSleepMs: 1, maxRetries: 1, maxSleepMs: ms }), 'maxSleepMs'],
    ['boundedExponentialBackoff baseSleepMs', (ms: number) => boundedExponentialBackoff({ baseSleepMs: ms, maxSleepMs: limit, maxRetries: 1 }), 'baseSleepMs'],
    ['boundedExponentialBackoff maxSleepMs', (ms: number) => boundedExponentialBackoff({ baseSleepMs: 1, maxSleepMs: ms, maxRetries: 1 }), 'maxSleepMs'],
  ])('%s: 2^31-1 is accepted, one more is refused naming the maximum', (_what, make, option) => {
    expect(make(limit).nextDelayMs(0, 0, connectionLoss)).toBeLessThanOrEqual(limit);
    expectInvalid(() => make(limit + 1), `${option} must be at most 2147483647 ms`);
  });
});

describe('sessionFailedRetryPolicy', () => {
  const inner: RetryPolicy = retryNTimes({ n: 5, sleepMs: 1 });

  it('never retries a lost session', () => {
    const p = sessionFailedRetryPolicy(inner);
    expect(p.nextDelayMs(0, 0, new SessionLostError('expired'))).toBeNull();
  });

  it('defers to the inner policy for anything else', () => {
    const p = sessionFailedRetryPolicy(inner);
    expect(p.nextDelayMs(0, 0, connectionLoss)).toBe(1);
    expect(p.nextDelayMs(5, 0, connectionLoss)).toBeNull();
    expect(p.nextDelayMs(0, 0, new Error('plain'))).toBe(1);
  });

  it('rejects something that is not a policy', () => {
    expectInvalid(() => sessionFailedRetryPolicy({} as never), 'inner');
    expectInvalid(() => sessionFailedRetryPolicy(null as never), 'inner');
  });
});
