import { z } from 'zod';
import type { RetryPolicy } from './RetryPolicy.js';
import { parseOptions } from '../validation.js';

/** Options of {@link retryNTimes}. */
export const RetryNTimesOptionsSchema = z
  .strictObject({
    /** Retries before giving up. */
    n: z.number().int().min(0),
    /** Fixed delay before each retry, in ms. */
    sleepMs: z.number().int().min(0),
  });

/** Input type of {@link retryNTimes}. */
export type RetryNTimesOptions = z.input<typeof RetryNTimesOptionsSchema>;

/**
 * Curator's `RetryNTimes`: retry up to `n` times with a fixed delay of `sleepMs`.
 *
 * @throws InvalidArgumentError when an option is missing or out of range
 */
export function retryNTimes(options: RetryNTimesOptions): RetryPolicy {
  const o = parseOptions(RetryNTimesOptionsSchema, options, 'retryNTimes');
  return fixedDelayPolicy(o.n, o.sleepMs);
}

/** @internal */
export function fixedDelayPolicy(n: number, sleepMs: number): RetryPolicy {
  return {
    nextDelayMs(retryCount) {
      return retryCount < n ? sleepMs : null;
    },
  };
}
