/**
 * The lock queue's pause between retries of its own steps: the session's retry policy decides, but a
 * custom policy's NaN, negative or huge delay must neither fire the timer at once (Node's
 * TimeoutOverflowWarning / TimeoutNegativeWarning: a tight loop) nor wait more than a second.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EngineScope } from '../../src/engine/EngineScope.js';
import { ZkQueueOps } from '../../src/engine/QueueOps.js';
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

/** The queue's ZooKeeper work, where the pause lives. */
function queueOps(session: ZkSession): ZkQueueOps {
  return new ZkQueueOps(new EngineScope(session), '/locks/pause', undefined);
}

/** The private step under test. */
type Pausing = { pauseBeforeRetry(attempt: number, err: unknown, signal: AbortSignal): Promise<void> };

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('ZkQueueOps: the pause before retrying a step', () => {
  it.each([
    ['a delay under a second', 250, 250],
    ['no further retries (null)', null, 1000],
    ['3e9 ms (more than a timer can wait)', 3e9, 1000],
    ['Infinity', Number.POSITIVE_INFINITY, 1000],
    ['NaN', Number.NaN, 0],
    ['a negative', -5, 0],
  ])('a policy answering %s: a timer of %s ms', async (_what, delay, expected) => {
    vi.useFakeTimers();
    const setTimer = vi.spyOn(globalThis, 'setTimeout');
    const queue = queueOps(fakeSession({ nextDelayMs: () => delay })) as unknown as Pausing;
    const paused = queue.pauseBeforeRetry(0, new Error('connection lost'), new AbortController().signal);
    expect(setTimer).toHaveBeenCalledTimes(1);
    expect(setTimer.mock.calls[0]![1]).toBe(expected);
    await vi.advanceTimersByTimeAsync(expected);
    await expect(paused).resolves.toBeUndefined();
  });

  it('an abort ends the pause at once', async () => {
    const queue = queueOps(fakeSession({ nextDelayMs: () => 3e9 })) as unknown as Pausing;
    const controller = new AbortController();
    const paused = queue.pauseBeforeRetry(0, new Error('connection lost'), controller.signal);
    controller.abort();
    await expect(paused).resolves.toBeUndefined();
  });
});
