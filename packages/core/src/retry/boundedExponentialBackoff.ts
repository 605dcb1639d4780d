import { z } from 'zod';
import type { RetryPolicy } from './RetryPolicy.js';
import { EXPONENTIAL_BACKOFF_MAX_RETRIES, backoffPolicy } from './exponentialBackoff.js';
import { MAX_TIMER_MS, tooLongForATimer } from './timerLimit.js';
import { parseOptions } from '../validation.js';
import type { AssertTrue, TypesEqual } from '../support/typeEquality.js';

/** Options of {@link boundedExponentialBackoff}. */
export interface BoundedExponentialBackoffOptions {
  /** Unit of the randomised delay, in ms (a positive integer, at most 2^31-1: what a timer can wait). */
  baseSleepMs: number;
  /**
   * Upper bound of any single delay, in ms (a positive integer, at least `baseSleepMs`, at most 2^31-1). Required
   * here: the whole point of this variant is a bounded delay.
   */
  maxSleepMs: number;
  /** Retries before giving up (0..29). */
  maxRetries: number;
  /** Source of randomness in [0, 1); injectable for tests. */
  random?: (() => number) | undefined;
}

const boundedExponentialBackoffOptionsSchema = z
  .strictObject({
    baseSleepMs: z.number().int().positive().max(MAX_TIMER_MS, tooLongForATimer('baseSleepMs')),
    maxSleepMs: z.number().int().positive().max(MAX_TIMER_MS, tooLongForATimer('maxSleepMs')),
    maxRetries: z.number().int().min(0).max(EXPONENTIAL_BACKOFF_MAX_RETRIES),
    random: z.custom<() => number>((v) => typeof v === 'function', 'must be a function').optional(),
  })
  .refine((o) => o.maxSleepMs >= o.baseSleepMs, {
    path: ['maxSleepMs'],
    message: 'must be at least baseSleepMs',
  });

// The schema accepts exactly the public type: this stops the build if one changes without the other.
type _SchemaMatchesBoundedExponentialBackoffOptions = AssertTrue<TypesEqual<z.input<typeof boundedExponentialBackoffOptionsSchema>, BoundedExponentialBackoffOptions>>;

/**
 * Curator's `BoundedExponentialBackoffRetry`: {@link exponentialBackoff} with a mandatory cap
 * `maxSleepMs` on each delay.
 *
 * @throws InvalidArgumentError when an option is missing or out of range
 */
export function boundedExponentialBackoff(options: BoundedExponentialBackoffOptions): RetryPolicy {
  const o = parseOptions(boundedExponentialBackoffOptionsSchema, options, 'boundedExponentialBackoff');
  return backoffPolicy('boundedExponentialBackoff', o.baseSleepMs, o.maxRetries, o.maxSleepMs, o.random ?? Math.random);
}
