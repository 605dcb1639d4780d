import { z } from 'zod';
import type { RetryPolicy } from './RetryPolicy.js';
import { MAX_TIMER_MS, tooLongForATimer } from './timerLimit.js';
import { parseOptions } from '../validation.js';
import type { AssertTrue, TypesEqual } from '../support/typeEquality.js';

/** Options of {@link retryForever}. */
export interface RetryForeverOptions {
  /** Fixed delay before each retry, in ms (an integer, 0 up to 2^31-1: what a timer can wait). */
  sleepMs: number;
}

const retryForeverOptionsSchema = z.strictObject({
  sleepMs: z.number().int().min(0).max(MAX_TIMER_MS, tooLongForATimer('sleepMs')),
});

// The schema accepts exactly the public type: this stops the build if one changes without the other.
type _SchemaMatchesRetryForeverOptions = AssertTrue<TypesEqual<z.input<typeof retryForeverOptionsSchema>, RetryForeverOptions>>;

/**
 * Curator's `RetryForever`: never gives up; waits `sleepMs` between attempts. Pair it with an
 * AbortSignal in the retry loop so the caller can still stop it.
 *
 * @throws InvalidArgumentError when an option is missing or out of range
 */
export function retryForever(options: RetryForeverOptions): RetryPolicy {
  const o = parseOptions(retryForeverOptionsSchema, options, 'retryForever');
  return {
    name: `retryForever(sleepMs: ${o.sleepMs})`,
    nextDelayMs() {
      return o.sleepMs;
    },
  };
}
