import { z } from 'zod';
import type { RetryPolicy } from './RetryPolicy.js';
import { parseOptions } from '../validation.js';
import { fixedDelayPolicy } from './retryNTimes.js';

/** Options of {@link retryOneTime}. */
export const RetryOneTimeOptionsSchema = z
  .strictObject({
    /** Delay before the single retry, in ms. */
    sleepMs: z.number().int().min(0),
  });

/** Input type of {@link retryOneTime}. */
export type RetryOneTimeOptions = z.input<typeof RetryOneTimeOptionsSchema>;

/**
 * Curator's `RetryOneTime`: a single retry after `sleepMs`.
 *
 * @throws InvalidArgumentError when an option is missing or out of range
 */
export function retryOneTime(options: RetryOneTimeOptions): RetryPolicy {
  const o = parseOptions(RetryOneTimeOptionsSchema, options, 'retryOneTime');
  return fixedDelayPolicy(1, o.sleepMs);
}
