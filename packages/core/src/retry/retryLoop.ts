import { AbortedError, InvalidArgumentError, isZkError, type RetriesExhaustedError } from '../errors.js';
import { RetryBudget } from './RetryBudget.js';
import type { RetryPolicy } from './RetryPolicy.js';
import { timerDelayMs } from './timerLimit.js';

/** Options of {@link runWithRetry}. */
export interface RetryLoopOptions {
  /** Decides whether and when to try again. */
  policy: RetryPolicy;
  /** Stops the loop: before an attempt, or during a sleep, with an {@link AbortedError}. */
  signal?: AbortSignal;
  /**
   * Which failures may be retried at all; the policy then decides whether they are.
   * Defaults to {@link isRetryableByDefault}.
   */
  isRetryable?: (err: unknown) => boolean;
  /**
   * Runs after the policy's delay and before the next attempt, e.g. to wait until the session
   * is connected again. Its rejection ends the loop with that rejection.
   */
  beforeRetry?: (err: unknown, signal: AbortSignal | undefined) => Promise<void>;
  /** Clock in ms (monotonic is best); injectable for tests. Defaults to `performance.now`. */
  now?: () => number;
  /** Sleeps `ms`, rejecting early when `signal` aborts; injectable for tests. */
  sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
}

/**
 * Failures that leave an operation's outcome unknown but the session usable: the connection
 * dropped or the reply timed out. `SESSION_LOST` is included too, because whether to go on with a
 * new session is the policy's call (see `sessionFailedRetryPolicy`), as in Curator.
 */
export function isRetryableByDefault(err: unknown): boolean {
  return (
    isZkError(err, 'CONNECTION_LOSS') || isZkError(err, 'OPERATION_TIMEOUT') || isZkError(err, 'SESSION_LOST')
  );
}

/**
 * Runs `attempt` until it succeeds, retrying only retryable failures and only as long as the
 * policy allows. A failure that is not retryable is rethrown unchanged; when the policy gives up,
 * the loop rejects with a {@link RetriesExhaustedError} whose `cause` is the last failure (the
 * engine's acquisitions end the same way: one meaning of "the policy gave up" everywhere).
 *
 * Callers must only retry operations that are safe to repeat: a create whose reply was lost may
 * have been applied, so non-idempotent operations need their own recovery (protected names).
 *
 * @param attempt - receives the attempt number, 0 for the first
 * @throws RetriesExhaustedError (`RETRIES_EXHAUSTED`) when the policy gives up
 * @throws AbortedError when `signal` aborts before an attempt or during a sleep (`cause` is the reason)
 * @throws InvalidArgumentError when `policy` is not a RetryPolicy
 */
export async function runWithRetry<T>(
  attempt: (attemptNo: number) => Promise<T>,
  options: RetryLoopOptions,
): Promise<T> {
  const { policy, signal } = options;
  if (typeof (policy as Partial<RetryPolicy> | undefined)?.nextDelayMs !== 'function') {
    throw new InvalidArgumentError('runWithRetry: option "policy" must be a RetryPolicy');
  }
  const isRetryable = options.isRetryable ?? isRetryableByDefault;
  const sleep = options.sleep ?? abortableSleep;
  const budget = new RetryBudget(policy, 'runWithRetry', { now: options.now });

  for (let attemptNo = 0; ; attemptNo++) {
    throwIfAborted(signal);
    try {
      return await attempt(attemptNo);
    } catch (err) {
      if (!isRetryable(err)) throw err;
      const delay = budget.delayAfter(err);
      try {
        await sleep(delay, signal);
      } catch (sleepErr) {
        if (signal?.aborted) throw abortedError(signal);
        throw sleepErr;
      }
      throwIfAborted(signal);
      if (options.beforeRetry) await options.beforeRetry(err, signal);
    }
  }
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortedError(signal);
}

function abortedError(signal: AbortSignal): AbortedError {
  return new AbortedError('retry loop aborted', { cause: signal.reason });
}

/**
 * Resolves after `ms` (at most 2^31-1 ms: a timer cannot wait longer), or rejects with
 * an {@link AbortedError} as soon as `signal` aborts.
 * Removes its abort listener either way, so long-lived signals do not accumulate listeners.
 */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortedError(signal));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortedError(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, timerDelayMs(ms));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
