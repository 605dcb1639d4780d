import { isZkError } from '../errors.js';
import { SETTLE_SLACK_MS, settleByOf } from '../signals/settleBound.js';

/**
 * One deadline for an acquisition made of several waits (a multi-lock's members one after another,
 * a Curator-layout semaphore's internal lock and then its leases): how long the next wait may take.
 *
 * - no timeout: every wait takes as long as it takes;
 * - `0` (a try): every wait gets `0`, i.e. succeeds only if free right now;
 * - otherwise each wait gets what is left, and once nothing is left the acquisition has timed out
 *   before the next wait starts.
 */
export class Deadline {
  private constructor(
    private readonly timeoutMs: number | undefined,
    /** When the clock started (`performance.now()` unless given): the acquisition's start. */
    readonly startedAt: number,
    private readonly endsAt: number,
  ) {}

  /** Starts the clock (milliseconds of `performance.now()` unless `now` is given). */
  static start(timeoutMs: number | undefined, now: number = performance.now()): Deadline {
    return new Deadline(timeoutMs, now, timeoutMs === undefined ? Infinity : now + timeoutMs);
  }

  /** The moment it passes, on the clock it was started with; undefined without a timeout. */
  get endsAtMs(): number | undefined {
    return this.timeoutMs === undefined ? undefined : this.endsAt;
  }

  /**
   * The moment an acquisition that failed with `reason` must have settled by (docs/architecture.md,
   * "Deadlines"): the one its stop marked it with; for an abort the recipe found itself (its check
   * of the caller's signal between two waits), now plus the slack; else its deadline plus the
   * slack; undefined (wait as long as it takes) for a failure without any of these.
   */
  settleBy(reason: unknown, now: number = performance.now()): number | undefined {
    const marked = settleByOf(reason);
    if (marked !== undefined) return marked;
    if (isZkError(reason, 'ABORTED')) return now + SETTLE_SLACK_MS;
    return this.timeoutMs === undefined ? undefined : this.endsAt + SETTLE_SLACK_MS;
  }

  /** The whole acquisition's timeout, as given. */
  get totalMs(): number | undefined {
    return this.timeoutMs;
  }

  /** True for a try: `timeoutMs` 0, "only if free right now". */
  get isTry(): boolean {
    return this.timeoutMs === 0;
  }

  /** True when a positive timeout has run out. */
  expired(now: number = performance.now()): boolean {
    return this.timeoutMs !== undefined && this.timeoutMs > 0 && now >= this.endsAt;
  }

  /** The timeout to give the next wait: undefined (no limit), 0 (try) or what is left. */
  remainingMs(now: number = performance.now()): number | undefined {
    if (this.timeoutMs === undefined) return undefined;
    if (this.timeoutMs === 0) return 0;
    // Whole milliseconds, rounded up: a wait never gets less than what is really left.
    return Math.max(0, Math.ceil(this.endsAt - now));
  }
}
