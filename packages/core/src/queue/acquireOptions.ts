import { z } from 'zod';
import { MAX_TIMER_MS } from '../session/options.js';
import { parseOptions } from '../validation.js';

/** Options every acquire-like call accepts (mutex, read/write lock, semaphore, multi-lock). */
export const AcquireOptionsSchema = z
  .object({
    /** Give up after this many milliseconds (`LOCK_TIMEOUT`). Omit to wait as long as it takes. */
    timeoutMs: z
      .number()
      .finite()
      .nonnegative()
      .max(MAX_TIMER_MS, `timeoutMs must be at most ${MAX_TIMER_MS} ms (about 24.8 days: a longer timer cannot be set); omit it to wait as long as it takes`)
      .optional(),
    /** Abort the wait (`ABORTED`). Our queue node is deleted before the promise settles. */
    signal: z.instanceof(AbortSignal).optional(),
    /**
     * Called when someone asks the holder to release: Curator's revocation protocol (`__REVOKE__`
     * written to our node, e.g. by Curator's `Revoker` or `requestRevocation()`). Called in a later turn
     * than the grant, so the code after `await acquire()` has its handle; a request made while we
     * wait is told once, just after `acquire()` resolved. Releasing is up to you (through the
     * handle); nothing is released for you. If it throws, the error is the session's `error` event.
     */
    onRevoke: z.custom<() => void>((value) => typeof value === 'function', 'onRevoke must be a function').optional(),
  })
  .strict();

export type AcquireOptions = z.infer<typeof AcquireOptionsSchema>;

/** Validates acquire options at the public boundary. */
export function parseAcquireOptions(options: unknown, where: string): AcquireOptions {
  return parseOptions(AcquireOptionsSchema, options ?? {}, where);
}
