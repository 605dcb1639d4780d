import { InvalidArgumentError, isZkError } from '../errors.js';
import type { RetryPolicy } from './RetryPolicy.js';

/**
 * Curator's `SessionFailedRetryPolicy`: defers to `inner`, except that an error with code
 * `SESSION_LOST` is never retried. Use it where retrying on a new session would be wrong, e.g.
 * an operation whose meaning depends on ephemeral nodes of the lost session.
 *
 * @throws InvalidArgumentError when `inner` is not a {@link RetryPolicy}
 */
export function sessionFailedRetryPolicy(inner: RetryPolicy): RetryPolicy {
  if (typeof (inner as Partial<RetryPolicy> | null | undefined)?.nextDelayMs !== 'function') {
    throw new InvalidArgumentError('sessionFailedRetryPolicy: option "inner" must be a RetryPolicy');
  }
  return {
    name: `sessionFailedRetryPolicy(${inner.name ?? 'a custom policy'})`,
    nextDelayMs(retryCount, elapsedMs, error) {
      if (isZkError(error, 'SESSION_LOST')) return null;
      return inner.nextDelayMs(retryCount, elapsedMs, error);
    },
  };
}
