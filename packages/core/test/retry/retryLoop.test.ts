import { describe, expect, it, vi } from 'vitest';
import {
  AbortedError,
  InvalidArgumentError,
  RetriesExhaustedError,
  SessionLostError,
  ZkRecipesError,
  ZooKeeperError,
} from '../../src/errors.js';
import {
  abortableSleep,
  retryForever,
  retryNTimes,
  runWithRetry,
  sessionFailedRetryPolicy,
  type RetryPolicy,
} from '../../src/retry/index.js';
import { MAX_TIMER_MS } from '../../src/session/options.js';
import { expectSoonerThan } from '../support/timeBound.js';

const connectionLoss = (): ZkRecipesError => new ZkRecipesError('CONNECTION_LOSS', 'connection lost');
const opTimeout = (): ZkRecipesError => new ZkRecipesError('OPERATION_TIMEOUT', 'timed out');

/** A fake clock and sleep: sleeping advances the clock and records the delay. */
function fakeTime(): { now: () => number; sleep: (ms: number) => Promise<void>; slept: number[] } {
  let t = 1000;
  const slept: number[] = [];
  return {
    now: () => t,
    sleep: async (ms) => {
      slept.push(ms);
      t += ms;
    },
    slept,
  };
}

describe('runWithRetry', () => {
  it('returns the first success without sleeping', async () => {
    const time = fakeTime();
    const attempt = vi.fn(async (n: number) => `ok ${n}`);
    await expect(runWithRetry(attempt, { policy: retryNTimes({ n: 3, sleepMs: 5 }), ...time })).resolves.toBe('ok 0');
    expect(attempt).toHaveBeenCalledTimes(1);
    expect(time.slept).toEqual([]);
  });

  it('retries connection loss and operation timeout, passing the attempt number', async () => {
    const time = fakeTime();
    const seen: number[] = [];
    const result = await runWithRetry(
      async (n) => {
        seen.push(n);
        if (n === 0) throw connectionLoss();
        if (n === 1) throw opTimeout();
        return 'done';
      },
      { policy: retryNTimes({ n: 3, sleepMs: 5 }), ...time },
    );
    expect(result).toBe('done');
    expect(seen).toEqual([0, 1, 2]);
    expect(time.slept).toEqual([5, 5]);
  });

  it('rejects with RETRIES_EXHAUSTED, naming the policy and the attempts, when the policy gives up', async () => {
    const time = fakeTime();
    const errors = [connectionLoss(), connectionLoss(), connectionLoss()];
    const attempt = vi.fn(async (n: number) => {
      throw errors[n];
    });
    const p = runWithRetry(attempt, { policy: retryNTimes({ n: 2, sleepMs: 1 }), ...time });
    await expect(p).rejects.toMatchObject({ code: 'RETRIES_EXHAUSTED', policy: 'retryNTimes(n: 2, sleepMs: 1)', attempts: 3, cause: errors[2] });
    await expect(p).rejects.toBeInstanceOf(RetriesExhaustedError);
    expect(attempt).toHaveBeenCalledTimes(3);
  });

  it('does not retry errors that are not safe to retry', async () => {
    const time = fakeTime();
    for (const err of [
      new ZooKeeperError('NODE_EXISTS', -110, 'exists'),
      new ZooKeeperError('NO_NODE', -101, 'no node'),
      new Error('plain'),
      'a string',
    ]) {
      const attempt = vi.fn(async () => {
        throw err;
      });
      await expect(runWithRetry(attempt, { policy: retryForever({ sleepMs: 1 }), ...time })).rejects.toBe(err);
      expect(attempt).toHaveBeenCalledTimes(1);
    }
  });

  it('retries a lost session only when the policy allows it', async () => {
    const time = fakeTime();
    let calls = 0;
    const attempt = async (): Promise<string> => {
      if (calls++ === 0) throw new SessionLostError('expired');
      return 'on a new session';
    };
    await expect(runWithRetry(attempt, { policy: retryNTimes({ n: 1, sleepMs: 1 }), ...time })).resolves.toBe(
      'on a new session',
    );

    calls = 0;
    const policy = sessionFailedRetryPolicy(retryNTimes({ n: 1, sleepMs: 1 }));
    const refused = runWithRetry(attempt, { policy, ...time });
    await expect(refused).rejects.toMatchObject({ code: 'RETRIES_EXHAUSTED', attempts: 1, policy: 'sessionFailedRetryPolicy(retryNTimes(n: 1, sleepMs: 1))' });
    await expect(refused.catch((err: Error) => err.cause)).resolves.toBeInstanceOf(SessionLostError);
    expect(calls).toBe(1);
  });

  it('uses a custom isRetryable instead of the default', async () => {
    const time = fakeTime();
    const custom = new Error('custom transient');
    let calls = 0;
    const attempt = async (): Promise<number> => {
      calls++;
      if (calls === 1) throw custom;
      if (calls === 2) throw connectionLoss();
      return calls;
    };
    const p = runWithRetry(attempt, {
      policy: retryNTimes({ n: 5, sleepMs: 1 }),
      isRetryable: (err) => err === custom,
      ...time,
    });
    await expect(p).rejects.toMatchObject({ code: 'CONNECTION_LOSS' });
    expect(calls).toBe(2);
  });

  it('hands the policy the retry count, the elapsed time and the error', async () => {
    const time = fakeTime();
    const calls: [number, number, unknown][] = [];
    const errs = [connectionLoss(), opTimeout()];
    const policy: RetryPolicy = {
      nextDelayMs(retryCount, elapsedMs, error) {
        calls.push([retryCount, elapsedMs, error]);
        return retryCount < 2 ? 100 : null;
      },
    };
    await runWithRetry(
      async (n) => {
        if (n < 2) throw errs[n];
        return null;
      },
      { policy, ...time },
    );
    expect(calls).toEqual([
      [0, 0, errs[0]],
      [1, 100, errs[1]],
    ]);
  });

  it('runs beforeRetry after the sleep and before the next attempt', async () => {
    const time = fakeTime();
    const log: string[] = [];
    const err = connectionLoss();
    const controller = new AbortController();
    await runWithRetry(
      async (n) => {
        log.push(`attempt ${n}`);
        if (n === 0) throw err;
      },
      {
        policy: retryNTimes({ n: 1, sleepMs: 9 }),
        signal: controller.signal,
        now: time.now,
        sleep: async (ms) => {
          log.push(`sleep ${ms}`);
        },
        beforeRetry: async (e, signal) => {
          expect(e).toBe(err);
          expect(signal).toBe(controller.signal);
          log.push('beforeRetry');
        },
      },
    );
    expect(log).toEqual(['attempt 0', 'sleep 9', 'beforeRetry', 'attempt 1']);
  });

  it('ends with beforeRetry\'s rejection', async () => {
    const time = fakeTime();
    const stop = new Error('not reconnected');
    const attempt = vi.fn(async () => {
      throw connectionLoss();
    });
    const p = runWithRetry(attempt, {
      policy: retryForever({ sleepMs: 1 }),
      ...time,
      beforeRetry: async () => {
        throw stop;
      },
    });
    await expect(p).rejects.toBe(stop);
    expect(attempt).toHaveBeenCalledTimes(1);
  });

  it('aborts during the sleep with AbortedError carrying the reason', async () => {
    const controller = new AbortController();
    const attempt = vi.fn(async () => {
      throw connectionLoss();
    });
    const started = performance.now();
    const p = runWithRetry(attempt, { policy: retryForever({ sleepMs: 60_000 }), signal: controller.signal });
    setTimeout(() => controller.abort('shutting down'), 20);
    const err = await p.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AbortedError);
    expect((err as AbortedError).cause).toBe('shutting down');
    expectSoonerThan('the abort during a 60 s sleep', performance.now() - started, 5_000);
    expect(attempt).toHaveBeenCalledTimes(1);
  });

  it('does not start when the signal is already aborted', async () => {
    const attempt = vi.fn(async () => 1);
    const p = runWithRetry(attempt, { policy: retryForever({ sleepMs: 1 }), signal: AbortSignal.abort('no') });
    await expect(p).rejects.toBeInstanceOf(AbortedError);
    expect(attempt).not.toHaveBeenCalled();
  });

  it('does not start another attempt when aborted while a custom sleep resolved anyway', async () => {
    const controller = new AbortController();
    const attempt = vi.fn(async () => {
      throw connectionLoss();
    });
    const p = runWithRetry(attempt, {
      policy: retryForever({ sleepMs: 1 }),
      signal: controller.signal,
      sleep: async () => {
        controller.abort();
      },
    });
    await expect(p).rejects.toBeInstanceOf(AbortedError);
    expect(attempt).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['a NaN or negative delay as no delay', [Number.NaN, -5], [0, 0]],
    ['a delay over 2^31-1 ms as 2^31-1 ms (a longer timer would fire at once)', [3e9, Number.POSITIVE_INFINITY], [MAX_TIMER_MS, MAX_TIMER_MS]],
  ])('treats %s', async (_what, delays, slept) => {
    const time = fakeTime();
    let n = 0;
    const policy: RetryPolicy = { nextDelayMs: (c) => delays[c] ?? null };
    await expect(
      runWithRetry(
        async () => {
          if (n++ < 2) throw connectionLoss();
          return 'ok';
        },
        { policy, ...time },
      ),
    ).resolves.toBe('ok');
    expect(time.slept).toEqual(slept);
  });

  it('rejects a missing policy', async () => {
    await expect(runWithRetry(async () => 1, {} as never)).rejects.toBeInstanceOf(InvalidArgumentError);
  });
});

describe('abortableSleep', () => {
  it('resolves after the delay and leaves no abort listener behind', async () => {
    const controller = new AbortController();
    const add = vi.spyOn(controller.signal, 'addEventListener');
    const remove = vi.spyOn(controller.signal, 'removeEventListener');
    for (let i = 0; i < 20; i++) await abortableSleep(0, controller.signal);
    expect(add).toHaveBeenCalledTimes(20);
    expect(remove).toHaveBeenCalledTimes(20);
  });

  it('sets no timer longer than 2^31-1 ms (Node would fire it at once): 3e9 ms still waits, until aborted', async () => {
    const setTimer = vi.spyOn(globalThis, 'setTimeout');
    const controller = new AbortController();
    try {
      let settled = false;
      const sleeping = abortableSleep(3e9, controller.signal).finally(() => (settled = true));
      expect(setTimer).toHaveBeenLastCalledWith(expect.any(Function), MAX_TIMER_MS);
      await new Promise((resolve) => setImmediate(resolve));
      expect(settled).toBe(false);
      controller.abort();
      await expect(sleeping).rejects.toBeInstanceOf(AbortedError);
    } finally {
      setTimer.mockRestore();
    }
  });

  it('rejects at once for an aborted signal', async () => {
    await expect(abortableSleep(60_000, AbortSignal.abort())).rejects.toBeInstanceOf(AbortedError);
  });
});
