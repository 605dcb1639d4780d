import { z } from 'zod';
import type { RetryPolicy } from './RetryPolicy.js';
import { parseOptions } from '../validation.js';

/** Options of {@link retryUntilElapsed}. */
export const RetryUntilElapsedOptionsSchema = z
  .strictObject({
    /** No retry is started once this much time has passed since the first attempt, in ms. */
    maxElapsedMs: z.number().int().min(0),
    /** Fixed delay before each retry, in ms. */
    sleepMs: z.number().int().min(0),
  });

/** Input type of {@link retryUntilElapsed}. */
export type RetryUntilElapsedOptions = z.input<typeof RetryUntilElapsedOptionsSchema>;

/**
 * Curator's `RetryUntilElapsed`: retry with a fixed delay as long as less than `maxElapsedMs` has
 * passed since the first attempt started.
 *
 * @throws InvalidArgumentError when an option is missing or out of range
 */
export function retryUntilElapsed(options: RetryUntilElapsedOptions): RetryPolicy {
  const o = parseOptions(RetryUntilElapsedOptionsSchema, options, 'retryUntilElapsed');
  return {
    nextDelayMs(_retryCount, elapsedMs) {
      return elapsedMs < o.maxElapsedMs ? o.sleepMs : null;
    },
  };
}
