/**
 * The lock queue's pause between retries of its own steps: the session's retry policy decides,
 * with the retries made and the real time since the step began; its "give up" ends the step with
 * RETRIES_EXHAUSTED. A custom policy's NaN, negative or huge delay must not fire the timer at once
 * (Node's TimeoutOverflowWarning / TimeoutNegativeWarning: a tight loop).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EngineScope } from '../../src/engine/EngineScope.js';
import { StepRetries } from '../../src/engine/StepRetries.js';
import { RetryBudget } from '../../src/retry/RetryBudget.js';
import { retryNTimes } from '../../src/retry/retryNTimes.js';
import { MAX_TIMER_MS } from '../../src/session/options.js';
import { StopSignal } from '../../src/signals/StopSignal.js';
import { SessionScope } from '../../src/session/sessionScope.js';
import type { RetryPolicy } from '../../src/retry/RetryPolicy.js';
import type { ZkSession } from '../../src/session/ZkSession.js';

/** Just what the constructor and the pause read of a session. */
function fakeSession(retryPolicy: RetryPolicy): ZkSession {
  const unused = () => Promise.reject(new Error('not used here'));
  const session = {
    getChildren: unused,
    create: unused,
    delete: unused,
    options: { aclCheck: 'on' },
    defaultAcl: [{ perms: 31, scheme: 'world', id: 'anyone' }],
    retryPolicy,
    waitForConnected: () => Promise.resolve(),
  } as unknown as ZkSession & { scope: SessionScope<ZkSession> };
  Object.assign(session, { scope: new SessionScope<ZkSession>(session) });
  return session;
}

/** The retries of a queue's steps, where the pause lives. */
function queueOps(session: ZkSession): StepRetries {
  return new StepRetries(new EngineScope(session), 'lock /locks/pause');
}

const lost = () => new Error('connection lost');
const budget = (policy: RetryPolicy, startedAt = performance.now()) => new RetryBudget(policy, 'lock /locks/pause', { startedAt });
const aStop = (signal?: AbortSignal) => new StopSignal({ sessionSignal: new AbortController().signal, signal, what: 'lock /locks/pause' });

afterEach(() => {
  // In this order: a spy set on a fake setTimeout would otherwise restore the fake one.
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('StepRetries: the pause before retrying a step', () => {
  it.each([
    ['a delay under a second', 250, 250],
    ['3 s', 3000, 3000],
    ['3e9 ms (more than a timer can wait)', 3e9, MAX_TIMER_MS],
    ['Infinity', Number.POSITIVE_INFINITY, MAX_TIMER_MS],
    ['NaN', Number.NaN, 0],
    ['a negative', -5, 0],
  ])('a policy answering %s: a timer of %s ms', async (_what, delay, expected) => {
    vi.useFakeTimers();
    const setTimer = vi.spyOn(globalThis, 'setTimeout');
    const policy = { nextDelayMs: () => delay };
    const queue = queueOps(fakeSession(policy));
    const paused = queue.pauseBeforeRetry(budget(policy), lost(), aStop());
    expect(setTimer).toHaveBeenCalledTimes(1);
    expect(setTimer.mock.calls[0]![1]).toBe(expected);
    await vi.advanceTimersByTimeAsync(expected);
    await expect(paused).resolves.toBeUndefined();
  });

  it('tells the policy the retries made and the real time since the step began', async () => {
    const asked: Array<[number, number]> = [];
    const policy: RetryPolicy = {
      nextDelayMs: (retryCount, elapsedMs) => {
        asked.push([retryCount, elapsedMs]);
        return 0;
      },
    };
    const queue = queueOps(fakeSession(policy));
    const retries = budget(policy, performance.now() - 5000);
    await queue.pauseBeforeRetry(retries, lost(), aStop());
    await queue.pauseBeforeRetry(retries, lost(), aStop());
    expect(asked.map(([count]) => count)).toEqual([0, 1]);
    expect(asked.every(([, elapsed]) => elapsed >= 5000 && elapsed < 60_000)).toBe(true);
  });

  it("a policy that gives up ends the step with RETRIES_EXHAUSTED naming the policy and the attempts, at once", async () => {
    const policy = retryNTimes({ n: 2, sleepMs: 0 });
    const queue = queueOps(fakeSession(policy));
    const retries = budget(policy);
    await queue.pauseBeforeRetry(retries, lost(), aStop());
    await queue.pauseBeforeRetry(retries, lost(), aStop());
    const setTimer = vi.spyOn(globalThis, 'setTimeout');
    const last = lost();
    await expect(queue.pauseBeforeRetry(retries, last, aStop())).rejects.toMatchObject({
      code: 'RETRIES_EXHAUSTED',
      policy: 'retryNTimes(n: 2, sleepMs: 0)',
      attempts: 3,
      cause: last,
      message: expect.stringMatching(/^lock \/locks\/pause: retryNTimes\(n: 2, sleepMs: 0\) gave up after 3 failed attempts/),
    });
    expect(setTimer).not.toHaveBeenCalled();
  });

  it('an abort ends the pause at once', async () => {
    const policy = { nextDelayMs: () => 3e9 };
    const queue = queueOps(fakeSession(policy));
    const controller = new AbortController();
    const paused = queue.pauseBeforeRetry(budget(policy), lost(), aStop(controller.signal));
    controller.abort();
    await expect(paused).resolves.toBeUndefined();
  });
});
