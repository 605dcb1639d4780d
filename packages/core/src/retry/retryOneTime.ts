import { z } from 'zod';
import type { RetryPolicy } from './RetryPolicy.js';
import { MAX_TIMER_MS, tooLongForATimer } from './timerLimit.js';
import { parseOptions } from '../validation.js';
import type { AssertTrue, TypesEqual } from '../support/typeEquality.js';
import { fixedDelayPolicy } from './retryNTimes.js';

/** Options of {@link retryOneTime}. */
export interface RetryOneTimeOptions {
  /** Delay before the single retry, in ms (an integer, 0 up to 2^31-1: what a timer can wait). */
  sleepMs: number;
}

const retryOneTimeOptionsSchema = z.strictObject({
  sleepMs: z.number().int().min(0).max(MAX_TIMER_MS, tooLongForATimer('sleepMs')),
});

// The schema accepts exactly the public type: this stops the build if one changes without the other.
type _SchemaMatchesRetryOneTimeOptions = AssertTrue<TypesEqual<z.input<typeof retryOneTimeOptionsSchema>, RetryOneTimeOptions>>;

/**
 * Curator's `RetryOneTime`: a single retry after `sleepMs`.
 *
 * @throws InvalidArgumentError when an option is missing or out of range
 */
export function retryOneTime(options: RetryOneTimeOptions): RetryPolicy {
  const o = parseOptions(retryOneTimeOptionsSchema, options, 'retryOneTime');
  return fixedDelayPolicy(`retryOneTime(sleepMs: ${o.sleepMs})`, 1, o.sleepMs);
}
