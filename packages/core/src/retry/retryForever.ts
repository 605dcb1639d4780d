import { z } from 'zod';
import type { RetryPolicy } from './RetryPolicy.js';
import { parseOptions } from '../validation.js';

/** Options of {@link retryForever}. */
export const RetryForeverOptionsSchema = z
  .strictObject({
    /** Fixed delay before each retry, in ms. */
    sleepMs: z.number().int().min(0),
  });

/** Input type of {@link retryForever}. */
export type RetryForeverOptions = z.input<typeof RetryForeverOptionsSchema>;

/**
 * Curator's `RetryForever`: never gives up; waits `sleepMs` between attempts. Pair it with an
 * AbortSignal in the retry loop so the caller can still stop it.
 *
 * @throws InvalidArgumentError when an option is missing or out of range
 */
export function retryForever(options: RetryForeverOptions): RetryPolicy {
  const o = parseOptions(RetryForeverOptionsSchema, options, 'retryForever');
  return {
    nextDelayMs() {
      return o.sleepMs;
    },
  };
}
