export type { RetryPolicy } from './RetryPolicy.js';
export { EXPONENTIAL_BACKOFF_MAX_RETRIES, exponentialBackoff, type ExponentialBackoffOptions } from './exponentialBackoff.js';
export { boundedExponentialBackoff, type BoundedExponentialBackoffOptions } from './boundedExponentialBackoff.js';
export { retryNTimes, type RetryNTimesOptions } from './retryNTimes.js';
export { retryOneTime, type RetryOneTimeOptions } from './retryOneTime.js';
export { retryUntilElapsed, type RetryUntilElapsedOptions } from './retryUntilElapsed.js';
export { retryForever, type RetryForeverOptions } from './retryForever.js';
export { sessionFailedRetryPolicy } from './sessionFailedRetryPolicy.js';
export { abortableSleep, isRetryableByDefault, runWithRetry, type RetryLoopOptions } from './retryLoop.js';
/** @internal the lock-queue engine's and the downgrade's retries under the session's policy. */
export { RetryBudget } from './retryLoop.js';
