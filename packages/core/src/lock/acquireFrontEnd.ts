// The acquire front-end every recipe shares: `acquire`, `tryAcquire` and `withLock` around the one
// step that differs between recipes, starting an acquisition (docs/architecture.md, "The acquire
// front-end"). The step gets validated options; it leaves the deadline and the caller's signal to
// the engine (`LockQueue.enter`) or, for an acquisition made of several waits, to a `Deadline`.
import { isZkError } from '../errors.js';
import { continueInFrame } from '../context/ownerContext.js';
import { z } from 'zod';
import { MAX_TIMER_MS } from '../retry/timerLimit.js';
import type { AssertTrue, TypesEqual } from '../support/typeEquality.js';
import { parseOptions } from '../validation.js';
import { runThenRelease, type Releasable } from './releaseAfter.js';
import { acquireChannel } from '../diagnostics/channels.js';
import { tracedAcquire } from './acquireTrace.js';
import type { AcquireOptions, AcquireSource, AcquireStep, Started } from './acquireTypes.js';

export type { AcquireOptions, AcquireSource, AcquireStep, Started } from './acquireTypes.js';

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

/**
 * Validates acquire options at the public boundary. Omitted options need no validating, and a
 * plain object the schema is sure to accept as it is (see `plainlyValid`) is taken without
 * running the schema: every acquisition passes here. Anything else is the schema's to judge (and
 * to explain).
 */
export function parseAcquireOptions(options: unknown, where: string): AcquireOptions {
  if (options === undefined) return NO_OPTIONS;
  if (plainlyValid(options)) return copyOf(options);
  return parseOptions(acquireOptionsSchema, options, where);
}

const NO_OPTIONS: AcquireOptions = Object.freeze({});

/**
 * @internal What the schema alone makes of `options` (the fast path's oracle in its tests),
 * typed on its own: a declaration naming the schema library would be type-checked in every consumer.
 */
export function acquireOptionsBySchema(options: unknown): { success: true; data: AcquireOptions } | { success: false } {
  const result = acquireOptionsSchema.safeParse(options);
  return result.success ? { success: true, data: result.data } : { success: false };
}

/** The known keys `options` has, as the schema would give them back (symbol keys left out, as it leaves them). */
function copyOf(options: AcquireOptions): AcquireOptions {
  const copy: AcquireOptions = {};
  if (Object.hasOwn(options, 'timeoutMs')) copy.timeoutMs = options.timeoutMs;
  if (Object.hasOwn(options, 'signal')) copy.signal = options.signal;
  if (Object.hasOwn(options, 'onRevoke')) copy.onRevoke = options.onRevoke;
  return copy;
}

/**
 * Whether `options` is a plain object whose own keys are all known and whose values all satisfy
 * {@link acquireOptionsSchema}: the schema accepts it, and gives back these same values. False
 * says nothing: the schema decides.
 */
function plainlyValid(options: unknown): options is AcquireOptions {
  if (typeof options !== 'object' || options === null || Object.getPrototypeOf(options) !== Object.prototype) return false;
  for (const key in options) {
    if (key !== 'timeoutMs' && key !== 'signal' && key !== 'onRevoke') return false;
  }
  const { timeoutMs, signal, onRevoke } = options as Record<string, unknown>;
  if (timeoutMs !== undefined && !(typeof timeoutMs === 'number' && Number.isFinite(timeoutMs) && timeoutMs >= 0 && timeoutMs <= MAX_TIMER_MS)) return false;
  if (signal !== undefined && !(signal instanceof AbortSignal)) return false;
  return onRevoke === undefined || typeof onRevoke === 'function';
}

/**
 * `acquire(options)`: validates `options` (`INVALID_ARGUMENT` naming `where`), starts `step`, and
 * hands out the grant. It rejects, never throws: it is a method that returns a promise.
 */
export function acquireVia<H>(step: AcquireStep<H>, options: unknown, where: string, source: AcquireSource, leases?: number): Promise<H> {
  let parsed: AcquireOptions;
  let started: Started<H>;
  try {
    parsed = parseAcquireOptions(options, where);
    // Checked before anything of the trace is built: an unheard acquisition costs nothing more.
    if (acquireChannel.hasSubscribers) return tracedAcquire(step, parsed, source, leases, false, handOut);
    started = step(parsed);
  } catch (err) {
    return Promise.reject(err);
  }
  return handOut(started);
}

/**
 * `tryAcquire(options)`: like {@link acquireVia}, but `timeoutMs` defaults to 0 ("only if free
 * now") and `LOCK_TIMEOUT` resolves to `null`. Every other failure still rejects.
 */
export function tryAcquireVia<H>(step: AcquireStep<H>, options: unknown, where: string, source: AcquireSource, leases?: number): Promise<H | null> {
  let started: Started<H>;
  try {
    const parsed = parseAcquireOptions(options, where);
    const tryOptions = { ...parsed, timeoutMs: parsed.timeoutMs ?? 0 };
    if (acquireChannel.hasSubscribers) return tracedAcquire(step, tryOptions, source, leases, true, (traced) => handOut<H, null>(traced, nullOnTimeout));
    started = step(tryOptions);
  } catch (err) {
    return Promise.reject(err);
  }
  return handOut<H, null>(started, nullOnTimeout);
}

/**
 * `withLock(fn, options)`: waits for `acquired`, runs `fn` with the handle and always releases
 * (see {@link runThenRelease}: a refused release rejects with `RELEASE_FAILED` carrying the handle).
 * `unreleased` tells whether the handle still has something to release after a failed release.
 */
export async function withLockVia<H extends Releasable, T>(
  acquired: Promise<H>,
  fn: (handle: H) => T | Promise<T>,
  what: string,
  unreleased: (handle: H) => boolean,
): Promise<T> {
  const handle = await acquired;
  return runThenRelease(handle, fn, what, () => unreleased(handle));
}

/** The grant as the caller gets it: tagged with the holder's frame, if there is one. */
function handOut<H, R = never>(started: Started<H>, onRejected?: (err: unknown) => R): Promise<H | R> {
  const { frame, granted } = started;
  if (frame === undefined) return onRejected === undefined ? granted : granted.catch(onRejected);
  // Tag last: only continuations of the promise the caller awaits run in the holder's frame.
  return continueInFrame<H, H | R>(frame, granted, undefined, onRejected);
}

function nullOnTimeout(err: unknown): null {
  if (isZkError(err, 'LOCK_TIMEOUT')) return null;
  throw err;
}
