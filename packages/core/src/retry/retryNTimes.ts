import { z } from 'zod';
import type { RetryPolicy } from './RetryPolicy.js';
import { MAX_TIMER_MS, tooLongForATimer } from './timerLimit.js';
import { parseOptions } from '../validation.js';
import type { AssertTrue, TypesEqual } from '../support/typeEquality.js';

/** Options of {@link retryNTimes}. */
export interface RetryNTimesOptions {
  /** Retries before giving up (an integer, 0 or more). */
  n: number;
  /** Fixed delay before each retry, in ms (an integer, 0 up to 2^31-1: what a timer can wait). */
  sleepMs: number;
}

const retryNTimesOptionsSchema = z.strictObject({
  n: z.number().int().min(0),
  sleepMs: z.number().int().min(0).max(MAX_TIMER_MS, tooLongForATimer('sleepMs')),
});

// The schema accepts exactly the public type: this stops the build if one changes without the other.
type _SchemaMatchesRetryNTimesOptions = AssertTrue<TypesEqual<z.input<typeof retryNTimesOptionsSchema>, RetryNTimesOptions>>;

/**
 * Curator's `RetryNTimes`: retry up to `n` times with a fixed delay of `sleepMs`.
 *
 * @throws InvalidArgumentError when an option is missing or out of range
 */
export function retryNTimes(options: RetryNTimesOptions): RetryPolicy {
  const o = parseOptions(retryNTimesOptionsSchema, options, 'retryNTimes');
  return fixedDelayPolicy(`retryNTimes(n: ${o.n}, sleepMs: ${o.sleepMs})`, o.n, o.sleepMs);
}

/** @internal */
export function fixedDelayPolicy(name: string, n: number, sleepMs: number): RetryPolicy {
  return {
    name,
    nextDelayMs(retryCount) {
      return retryCount < n ? sleepMs : null;
    },
  };
}
