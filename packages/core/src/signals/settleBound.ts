/*
 * The deadline contract (docs/architecture.md, "Deadlines"): an acquisition settles no later than
 * its deadline or its caller's abort plus a slack, whatever the server does. What it waits for
 * while it fails (the delete of a node it made, the release of parts it took) is waited for no
 * longer than that; the work goes on in the background.
 */

/**
 * How long after its deadline or its caller's abort an acquisition may still take to settle,
 * whatever the server does: what timers firing late need, and no more. Within it a failed
 * acquisition waits for the delete of its node (a server that answers leaves nothing behind when
 * it settles), and a deadline that passes before the first decision waits for that decision (a try,
 * `timeoutMs: 0`, gets the lock if the server answers within it); past it both go on without the
 * caller: the clean-up in the background, the look not at all.
 */
export const SETTLE_SLACK_MS = 50;

/** Where a failure carries the moment its acquisition must have settled by (see {@link markSettleBy}). */
const SETTLE_BY = Symbol('zk-recipes.settleBy');

/**
 * Marks `reason`, the error an acquisition stops with, with the moment it must have settled by:
 * `causedAt` (its deadline, its abort) plus the slack. A recipe made of several waits reads it back
 * with {@link settleByOf} to bound its own clean-up by the same moment.
 */
export function markSettleBy(reason: unknown, causedAt: number): void {
  if (typeof reason !== 'object' || reason === null || SETTLE_BY in reason) return;
  Object.defineProperty(reason, SETTLE_BY, { value: causedAt + SETTLE_SLACK_MS });
}

/** The settle-by moment `reason` (or an error in its `cause` chain) carries, if any. */
export function settleByOf(reason: unknown): number | undefined {
  let current: unknown = reason;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
    const by = (current as { [SETTLE_BY]?: number })[SETTLE_BY];
    if (by !== undefined) return by;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** How `work` went within its bound: settled (with its error, if it rejected), or not yet. */
export type Bounded =
  | {
      /** The work settled in time. */
      settled: true;
      /** What it rejected with, if it did. */
      error?: unknown;
    }
  | {
      /** The bound came first; the work goes on, unobserved. */
      settled: false;
    };

/**
 * Waits for `work` until performance.now() reaches `by` (at once if it has; for ever when `by` is
 * undefined). Never rejects; a rejection after the bound is handled (the work went on in the
 * background and its caller has moved on).
 */
export function settleWithin(work: Promise<unknown>, by: number | undefined): Promise<Bounded> {
  return new Promise<Bounded>((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    work.then(
      () => {
        clearTimeout(timer);
        resolve({ settled: true });
      },
      (error: unknown) => {
        clearTimeout(timer);
        resolve({ settled: true, error });
      },
    );
    if (by !== undefined) timer = setTimeout(() => resolve({ settled: false }), Math.max(0, by - performance.now()));
  });
}
