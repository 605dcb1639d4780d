/**
 * The pause between two attempts of an acquisition that lost its ZooKeeper session (a
 * `curator`-layout semaphore starts its whole step again after it): the caller's abort and the
 * deadline end it before the policy is asked; otherwise the loss is counted, and it resolves once
 * the session is connected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionLostError } from '../../src/errors.js';
import { pauseAfterLostSession } from '../../src/lock/pauseAfterLostSession.js';
import { RetryBudget } from '../../src/retry/RetryBudget.js';
import { retryNTimes, sessionFailedRetryPolicy } from '../../src/retry/index.js';
import { ZkSession } from '../../src/session/index.js';
import { sharedServer } from '../session/support.js';

let session: ZkSession;
const lost = new SessionLostError('test: the ZooKeeper session was lost');

beforeAll(async () => {
  session = await ZkSession.connect({ connectString: sharedServer().connectString, sessionTimeoutMs: 4000 });
});
afterAll(async () => {
  await session.close();
});

const outcomeOf = (promise: Promise<void>) =>
  promise.then(
    () => 'resolved',
    (err: unknown) => err,
  );

describe('pauseAfterLostSession', () => {
  it('counts the loss and resolves once connected while the policy allows', async () => {
    const budget = new RetryBudget(retryNTimes({ n: 1, sleepMs: 0 }), 'test');
    expect(await outcomeOf(pauseAfterLostSession(session, 'test', lost, budget, undefined, undefined))).toBe('resolved');
    expect(budget.attempts).toBe(1);
    expect(await outcomeOf(pauseAfterLostSession(session, 'test', lost, budget, performance.now() + 10_000, undefined))).toMatchObject({
      code: 'RETRIES_EXHAUSTED',
      attempts: 2,
      cause: lost,
    });
  });

  it("ends with the caller's abort, or the deadline, before asking the policy (which would refuse)", async () => {
    const refusing = new RetryBudget(sessionFailedRetryPolicy(retryNTimes({ n: 5, sleepMs: 0 })), 'test');
    const aborted = AbortSignal.abort(new Error('stop'));
    expect(await outcomeOf(pauseAfterLostSession(session, 'test', lost, refusing, undefined, aborted))).toMatchObject({ code: 'ABORTED' });
    expect(await outcomeOf(pauseAfterLostSession(session, 'test', lost, refusing, performance.now() - 1, undefined))).toMatchObject({ code: 'LOCK_TIMEOUT', cause: lost });
    expect(refusing.attempts).toBe(0);
    expect(await outcomeOf(pauseAfterLostSession(session, 'test', lost, refusing, undefined, undefined))).toMatchObject({ code: 'RETRIES_EXHAUSTED' });
  });

  it('the deadline and the signal end the policy\'s pause with their own errors', async () => {
    const slow = () => new RetryBudget(retryNTimes({ n: 5, sleepMs: 60_000 }), 'test');
    expect(await outcomeOf(pauseAfterLostSession(session, 'test', lost, slow(), performance.now() + 50, undefined))).toMatchObject({ code: 'LOCK_TIMEOUT' });
    const controller = new AbortController();
    const pausing = outcomeOf(pauseAfterLostSession(session, 'test', lost, slow(), undefined, controller.signal));
    controller.abort();
    expect(await pausing).toMatchObject({ code: 'ABORTED' });
  });
});
