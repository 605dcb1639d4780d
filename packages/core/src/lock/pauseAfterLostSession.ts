import { AbortedError, LockTimeoutError } from '../errors.js';
import type { RetryBudget } from '../retry/RetryBudget.js';
import { abortableSleep } from '../retry/retryLoop.js';
import type { ZkSession } from '../session/ZkSession.js';

/**
 * Between two attempts of an acquisition whose ZooKeeper session was lost before it was granted
 * (docs/architecture.md, "A waiter survives its session"): unless the caller aborted or the
 * deadline passed, counts the loss `err` against the session's policy in `budget`, then resolves
 * once the policy's pause is over and the session's next ZooKeeper session is connected. For a
 * recipe whose acquisition is several waits that must all belong to one session (a
 * `curator`-layout semaphore's internal lock and leases), which then starts it all again.
 * @param endsAt the acquisition's deadline on `performance.now()`; undefined for none
 * @throws RetriesExhaustedError (`RETRIES_EXHAUSTED`, cause `err`) when the policy gives up;
 * LockTimeoutError at the deadline; AbortedError when `signal` aborts; SessionClosedError on close
 */
export async function pauseAfterLostSession(
  session: ZkSession,
  what: string,
  err: unknown,
  budget: RetryBudget,
  endsAt: number | undefined,
  signal: AbortSignal | undefined,
): Promise<void> {
  // The caller's own abort and the deadline come before the policy's verdict: they are why it ends.
  const aborted = (): AbortedError => new AbortedError(`${what}: aborted`, { cause: signal?.reason });
  if (signal?.aborted === true) throw aborted();
  const timeout = (): LockTimeoutError => new LockTimeoutError(`${what}: not acquired in time (its ZooKeeper session was lost while it waited)`, { cause: err });
  if (endsAt !== undefined && endsAt - performance.now() <= 0) throw timeout();
  const delay = budget.delayAfter(err);
  const remaining = endsAt === undefined ? Infinity : endsAt - performance.now();
  const stop = new AbortController();
  const onAbort = (): void => stop.abort(aborted());
  signal?.addEventListener('abort', onAbort, { once: true });
  const timer = remaining === Infinity ? undefined : setTimeout(() => stop.abort(timeout()), remaining);
  try {
    // The policy's pause; the deadline or the caller's signal ends it with their own error.
    await abortableSleep(delay, stop.signal).catch(() => {
      throw stop.signal.reason;
    });
    await session.waitForConnected(stop.signal);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
