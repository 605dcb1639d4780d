import { z } from 'zod';
import { MAX_TIMER_MS } from '../session/options.js';
import type { AssertTrue, TypesEqual } from '../support/typeEquality.js';
import { parseOptions } from '../validation.js';

/** Options every acquire-like call accepts (mutex, read/write lock, semaphore, multi-lock). */
export interface AcquireOptions {
  /**
   * Give up after this many milliseconds (`LOCK_TIMEOUT`): a finite number from 0 to 2^31-1 (about
   * 24.8 days). Omit to wait as long as it takes.
   */
  timeoutMs?: number | undefined;
  /** Abort the wait (`ABORTED`). Our queue node is deleted before the promise settles. */
  signal?: AbortSignal | undefined;
  /**
   * Called when someone asks the holder to release: Curator's revocation protocol (`__REVOKE__`
   * written to our node, e.g. by Curator's `Revoker` or `requestRevocation()`). Called in a later turn
   * than the grant, so the code after `await acquire()` has its handle; a request made while we
   * wait is told once, just after `acquire()` resolved. Releasing is up to you (through the
   * handle); nothing is released for you. If it throws, the error is the session's `error` event.
   */
  onRevoke?: (() => void) | undefined;
}

const acquireOptionsSchema = z
  .object({
    timeoutMs: z
      .number()
      .finite()
      .nonnegative()
      .max(MAX_TIMER_MS, `timeoutMs must be at most ${MAX_TIMER_MS} ms (about 24.8 days: a longer timer cannot be set); omit it to wait as long as it takes`)
      .optional(),
    signal: z.instanceof(AbortSignal).optional(),
    onRevoke: z.custom<() => void>((value) => typeof value === 'function', 'onRevoke must be a function').optional(),
  })
  .strict();

// The schema accepts exactly the public type (and adds no defaults): this stops the build if one
// changes without the other.
type _SchemaMatchesAcquireOptions = AssertTrue<TypesEqual<z.input<typeof acquireOptionsSchema>, AcquireOptions>>;
type _SchemaGivesAcquireOptions = AssertTrue<TypesEqual<z.output<typeof acquireOptionsSchema>, AcquireOptions>>;

/** Validates acquire options at the public boundary. */
export function parseAcquireOptions(options: unknown, where: string): AcquireOptions {
  return parseOptions(acquireOptionsSchema, options ?? {}, where);
}
