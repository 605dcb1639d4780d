import { AbortedError, isZkError, LockTimeoutError } from '../errors.js';
import { RetryBudget } from '../retry/RetryBudget.js';
import type { ZkSession } from '../session/ZkSession.js';
import type { QueueSeat } from './ownNode.js';

/** The parts of an acquisition that outlive one attempt at it. */
export interface SurvivingOptions {
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

/** One attempt: enqueue on the current ZooKeeper session and walk the queue to a grant. */
export type EnterAttempt = (timeoutMs: number | undefined, budget: RetryBudget) => Promise<QueueSeat>;

/**
 * Runs `attempt` and, when it ends with the loss of its ZooKeeper session before the grant,
 * enqueues again on the session's next one, while the acquisition's deadline, its signal and the
 * session's retry policy allow (docs/architecture.md, "A waiter survives its session"). A waiter
 * loses nothing with its session but its place: its node went with it, so a new node takes the
 * place at the end of the queue. A holder's loss is never retried here: the grant resolved its
 * seat, whose signal aborts (the lock is gone, and nobody may be told otherwise).
 *
 * The budget is shared by every attempt and every step in it (the engine counts its connection
 * losses there too), so `retryNTimes` or `retryUntilElapsed` ends the acquisition as a whole with
 * `RETRIES_EXHAUSTED`. No async frame: a process may park ten thousand waiters, each of which
 * costs this only a `.catch`.
 */
export function enterSurvivingLoss(session: ZkSession, what: string, options: SurvivingOptions, attempt: EnterAttempt): Promise<QueueSeat> {
  const budget = new RetryBudget(session.retryPolicy, what);
  const { timeoutMs, signal } = options;
  const deadline = timeoutMs === undefined ? undefined : performance.now() + timeoutMs;
  const again = (err: unknown): Promise<QueueSeat> =>
    retryAfterLoss(session, what, err, budget, deadline, signal).then(() => {
      const remaining = deadline === undefined ? undefined : Math.max(0, Math.ceil(deadline - performance.now()));
      return attempt(remaining, budget).catch(again);
    });
  return attempt(timeoutMs, budget).catch(again);
}

/**
 * Rethrows `err` unless it is the loss of the session; otherwise counts it against the policy
 * (which may end the acquisition) and resolves once the policy's pause is over and the session's
 * next ZooKeeper session is connected. The deadline and the signal end the wait with their own
 * errors; closing the session ends it with `SESSION_CLOSED`.
 */
async function retryAfterLoss(session: ZkSession, what: string, err: unknown, budget: RetryBudget, deadline: number | undefined, signal: AbortSignal | undefined): Promise<void> {
  if (!isZkError(err, 'SESSION_LOST')) throw err;
  const delay = budget.delayAfter(err);
  const stop = new AbortController();
  const timeout = (): LockTimeoutError => new LockTimeoutError(`${what}: not acquired in time (its ZooKeeper session was lost while it waited)`, { cause: err });
  const aborted = (): AbortedError => new AbortedError(`${what}: aborted`, { cause: signal?.reason });
  if (signal?.aborted === true) throw aborted();
  const remaining = deadline === undefined ? Infinity : deadline - performance.now();
  if (remaining <= 0) throw timeout();
  const onAbort = (): void => stop.abort(aborted());
  signal?.addEventListener('abort', onAbort, { once: true });
  const timer = remaining === Infinity ? undefined : setTimeout(() => stop.abort(timeout()), remaining);
  try {
    await new Promise<void>((resolve, reject) => {
      const pause = setTimeout(resolve, delay);
      stop.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(pause);
          reject(stop.signal.reason);
        },
        { once: true },
      );
    });
    await session.waitForConnected(stop.signal);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
