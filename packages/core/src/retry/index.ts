export type { RetryPolicy } from './RetryPolicy.js';
export {
  EXPONENTIAL_BACKOFF_MAX_RETRIES,
  ExponentialBackoffOptionsSchema,
  exponentialBackoff,
  type ExponentialBackoffOptions,
} from './exponentialBackoff.js';
export {
  BoundedExponentialBackoffOptionsSchema,
  boundedExponentialBackoff,
  type BoundedExponentialBackoffOptions,
} from './boundedExponentialBackoff.js';
export { RetryNTimesOptionsSchema, retryNTimes, type RetryNTimesOptions } from './retryNTimes.js';
export { RetryOneTimeOptionsSchema, retryOneTime, type RetryOneTimeOptions } from './retryOneTime.js';
export {
  RetryUntilElapsedOptionsSchema,
  retryUntilElapsed,
  type RetryUntilElapsedOptions,
} from './retryUntilElapsed.js';
export { RetryForeverOptionsSchema, retryForever, type RetryForeverOptions } from './retryForever.js';
export { sessionFailedRetryPolicy } from './sessionFailedRetryPolicy.js';
export { abortableSleep, isRetryableByDefault, runWithRetry, type RetryLoopOptions } from './retryLoop.js';
