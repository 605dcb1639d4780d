import { z } from 'zod';
import type { RetryPolicy } from './RetryPolicy.js';
import { MAX_TIMER_MS, tooLongForATimer } from './timerLimit.js';
import { parseOptions } from '../validation.js';
import type { AssertTrue, TypesEqual } from '../support/typeEquality.js';

/** Options of {@link retryUntilElapsed}. */
export interface RetryUntilElapsedOptions {
  /** No retry is started once this much time has passed since the first attempt, in ms (an integer, 0 or more). */
  maxElapsedMs: number;
  /** Fixed delay before each retry, in ms (an integer, 0 up to 2^31-1: what a timer can wait). */
  sleepMs: number;
}

const retryUntilElapsedOptionsSchema = z.strictObject({
  maxElapsedMs: z.number().int().min(0),
  sleepMs: z.number().int().min(0).max(MAX_TIMER_MS, tooLongForATimer('sleepMs')),
});

// The schema accepts exactly the public type: this stops the build if one changes without the other.
type _SchemaMatchesRetryUntilElapsedOptions = AssertTrue<TypesEqual<z.input<typeof retryUntilElapsedOptionsSchema>, RetryUntilElapsedOptions>>;

/**
 * Curator's `RetryUntilElapsed`: retry with a fixed delay as long as less than `maxElapsedMs` has
 * passed since the first attempt started.
 *
 * @throws InvalidArgumentError when an option is missing or out of range
 */
export function retryUntilElapsed(options: RetryUntilElapsedOptions): RetryPolicy {
  const o = parseOptions(retryUntilElapsedOptionsSchema, options, 'retryUntilElapsed');
  return {
    name: `retryUntilElapsed(maxElapsedMs: ${o.maxElapsedMs}, sleepMs: ${o.sleepMs})`,
    nextDelayMs(_retryCount, elapsedMs) {
      return elapsedMs < o.maxElapsedMs ? o.sleepMs : null;
    },
  };
}
