import { z } from 'zod';
import type { RetryPolicy } from './RetryPolicy.js';
import { EXPONENTIAL_BACKOFF_MAX_RETRIES, backoffPolicy } from './exponentialBackoff.js';
import { parseOptions } from '../validation.js';

/** Options of {@link boundedExponentialBackoff}. */
export const BoundedExponentialBackoffOptionsSchema = z
  .strictObject({
    baseSleepMs: z.number().int().positive(),
    /** Required here: the whole point of this variant is a bounded delay. */
    maxSleepMs: z.number().int().positive(),
    maxRetries: z.number().int().min(0).max(EXPONENTIAL_BACKOFF_MAX_RETRIES),
    random: z.custom<() => number>((v) => typeof v === 'function', 'must be a function').optional(),
  })
  .refine((o) => o.maxSleepMs >= o.baseSleepMs, {
    path: ['maxSleepMs'],
    message: 'must be at least baseSleepMs',
  });

/** Input type of {@link boundedExponentialBackoff}. */
export type BoundedExponentialBackoffOptions = z.input<typeof BoundedExponentialBackoffOptionsSchema>;

/**
 * Curator's `BoundedExponentialBackoffRetry`: {@link exponentialBackoff} with a mandatory cap
 * `maxSleepMs` on each delay.
 *
 * @throws InvalidArgumentError when an option is missing or out of range
 */
export function boundedExponentialBackoff(options: BoundedExponentialBackoffOptions): RetryPolicy {
  const o = parseOptions(BoundedExponentialBackoffOptionsSchema, options, 'boundedExponentialBackoff');
  return backoffPolicy(o.baseSleepMs, o.maxRetries, o.maxSleepMs, o.random ?? Math.random);
}
