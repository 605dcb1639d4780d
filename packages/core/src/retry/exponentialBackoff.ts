import { z } from 'zod';
import type { RetryPolicy } from './RetryPolicy.js';
import { MAX_TIMER_MS, tooLongForATimer } from './timerLimit.js';
import { parseOptions } from '../validation.js';
import type { AssertTrue, TypesEqual } from '../support/typeEquality.js';

/**
 * Highest `maxRetries` accepted: beyond it `2^(retryCount+1)` leaves the range of a 32-bit int,
 * which is the same limit Curator applies.
 */
export const EXPONENTIAL_BACKOFF_MAX_RETRIES = 29;

/** Options of {@link exponentialBackoff}. */
export interface ExponentialBackoffOptions {
  /** Unit of the randomised delay, in ms (a positive integer, at most 2^31-1: what a timer can wait). */
  baseSleepMs: number;
  /** Retries before giving up (0..29). */
  maxRetries: number;
  /** Upper bound of any single delay, in ms (a positive integer, at most 2^31-1: what a timer can wait). 2^31-1 by default. */
  maxSleepMs?: number | undefined;
  /** Source of randomness in [0, 1); injectable for tests. */
  random?: (() => number) | undefined;
}

const exponentialBackoffOptionsSchema = z.strictObject({
  baseSleepMs: z.number().int().positive().max(MAX_TIMER_MS, tooLongForATimer('baseSleepMs')),
  maxRetries: z.number().int().min(0).max(EXPONENTIAL_BACKOFF_MAX_RETRIES),
  maxSleepMs: z.number().int().positive().max(MAX_TIMER_MS, tooLongForATimer('maxSleepMs')).default(MAX_TIMER_MS),
  random: z.custom<() => number>((v) => typeof v === 'function', 'must be a function').optional(),
});

// The schema accepts exactly the public type: this stops the build if one changes without the other.
type _SchemaMatchesExponentialBackoffOptions = AssertTrue<
  TypesEqual<z.input<typeof exponentialBackoffOptionsSchema>, ExponentialBackoffOptions>
>;

/**
 * Curator's `ExponentialBackoffRetry`: retry up to `maxRetries` times, sleeping
 * `baseSleepMs * k` where `k` is a random integer in `[1, 2^(retryCount+1))` (a draw of 0 counts
 * as 1), capped at `maxSleepMs`. The randomness keeps many clients that lost the same server
 * from reconnecting in lock step.
 *
 * @throws InvalidArgumentError when an option is missing or out of range
 */
export function exponentialBackoff(options: ExponentialBackoffOptions): RetryPolicy {
  const o = parseOptions(exponentialBackoffOptionsSchema, options, 'exponentialBackoff');
  return backoffPolicy('exponentialBackoff', o.baseSleepMs, o.maxRetries, o.maxSleepMs, o.random ?? Math.random);
}

/** Shared by the bounded and unbounded variants. @internal */
export function backoffPolicy(
  kind: string,
  baseSleepMs: number,
  maxRetries: number,
  maxSleepMs: number,
  random: () => number,
): RetryPolicy {
  return {
    name: `${kind}(baseSleepMs: ${baseSleepMs}, maxRetries: ${maxRetries}, maxSleepMs: ${maxSleepMs})`,
    nextDelayMs(retryCount) {
      if (retryCount >= maxRetries) return null;
      // Clamp so that a misbehaving random source or a huge retryCount cannot overflow the range.
      const span = 2 ** (Math.min(retryCount, EXPONENTIAL_BACKOFF_MAX_RETRIES) + 1);
      const factor = Math.max(1, Math.min(span - 1, Math.floor(random() * span)));
      return Math.min(baseSleepMs * factor, maxSleepMs);
    },
  };
}
