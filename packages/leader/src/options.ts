import { z } from 'zod';
import { parseOptions, type AssertTrue, type TypesEqual } from '@zk-recipes/core/recipe-kit';

/** Options of a {@link LeaderLatch}. */
export interface LeaderLatchOptions {
  /**
   * This participant's id, written as its node's data (what `getParticipants()` and Curator's
   * `getParticipants()` report). Default: owner data naming this host, process and the session's
   * `label` (docs/observability.md, "Owner data").
   */
  id?: string | undefined;
  /**
   * With `id`: write this process's owner data (host, pid, the session's `label`) beside the id in
   * the node's data, `{"zkRecipes":1,...,"id":"<id>"}`, so that `getParticipants()` and
   * `zk-recipes inspect` show both (docs/observability.md, "Owner data"). Curator's
   * `getParticipants()` then reports that whole JSON as the id: leave it off (the default, the id
   * alone, as Curator writes it) where Java participants read the ids. Without `id` the data is
   * the owner data anyway.
   */
  ownerData?: boolean | undefined;
  /**
   * Whether `close()` of a leader emits `notLeader` (`'notify-leader'`) or not (`'silent'`, the
   * default, as Curator's). The leadership's `signal` aborts either way.
   */
  closeMode?: 'silent' | 'notify-leader' | undefined;
}

/** Options of a {@link LeaderSelector}. */
export interface LeaderSelectorOptions {
  /** This participant's id, written as its node's data. Default: owner data, as for a latch. */
  id?: string | undefined;
  /** With `id`: owner data beside the id, as a latch's `ownerData` (Curator then reads the JSON as the id). */
  ownerData?: boolean | undefined;
  /**
   * Join the election again each time a term ends, until `close()` or the run's `signal` (as
   * Curator's `autoRequeue()`). Default false: `run()` takes leadership once.
   */
  autoRequeue?: boolean | undefined;
}

/** Options of `LeaderLatch.leadership()`. */
export interface LeadershipOptions {
  /** Give up waiting after this many milliseconds (`LEADERSHIP_TIMEOUT`); the latch stays in the election. */
  timeoutMs?: number | undefined;
  /** Stop waiting when it aborts (`ABORTED`); the latch stays in the election. */
  signal?: AbortSignal | undefined;
}

/** Options of `LeaderSelector.run()`. */
export interface RunOptions {
  /** Give up waiting for leadership after this many milliseconds, each term (`LEADERSHIP_TIMEOUT`). */
  timeoutMs?: number | undefined;
  /**
   * Ends the run: a wait for leadership rejects (`ABORTED`); a term's leadership `signal` aborts
   * (the function is expected to return); with `autoRequeue`, the run then resolves.
   */
  signal?: AbortSignal | undefined;
}

/** The longest a timer can wait (2^31 - 1 ms). */
const MAX_TIMER_MS = 2_147_483_647;

const id = z.string().optional();
const timeoutMs = z
  .number()
  .finite()
  .nonnegative()
  .max(MAX_TIMER_MS, `timeoutMs must be at most ${MAX_TIMER_MS} ms (about 24.8 days: a longer timer cannot be set); omit it to wait as long as it takes`)
  .optional();
const signal = z.instanceof(AbortSignal).optional();

const ownerData = z.boolean().optional();
const latchSchema = z.object({ id, ownerData, closeMode: z.enum(['silent', 'notify-leader']).optional() }).strict();
const selectorSchema = z.object({ id, ownerData, autoRequeue: z.boolean().optional() }).strict();
const waitSchema = z.object({ timeoutMs, signal }).strict();

// The schemas accept exactly the public types (and add no defaults): this stops the build if one
// changes without the other.
type _Latch = AssertTrue<TypesEqual<z.input<typeof latchSchema>, LeaderLatchOptions>>;
type _LatchOut = AssertTrue<TypesEqual<z.output<typeof latchSchema>, LeaderLatchOptions>>;
type _Selector = AssertTrue<TypesEqual<z.input<typeof selectorSchema>, LeaderSelectorOptions>>;
type _SelectorOut = AssertTrue<TypesEqual<z.output<typeof selectorSchema>, LeaderSelectorOptions>>;
type _Leadership = AssertTrue<TypesEqual<z.input<typeof waitSchema>, LeadershipOptions>>;
type _Run = AssertTrue<TypesEqual<z.output<typeof waitSchema>, RunOptions>>;

/** Validates a latch's options (absent means none); `INVALID_ARGUMENT` names `where`. */
export function parseLatchOptions(options: unknown, where: string): LeaderLatchOptions {
  return parseOptions(latchSchema, options ?? {}, where);
}

/** Validates a selector's options (absent means none). */
export function parseSelectorOptions(options: unknown, where: string): LeaderSelectorOptions {
  return parseOptions(selectorSchema, options ?? {}, where);
}

/** Validates the options of a wait for leadership (`leadership()`, `run()`). */
export function parseWaitOptions(options: unknown, where: string): LeadershipOptions {
  return options === undefined ? {} : parseOptions(waitSchema, options, where);
}
