/** The longest delay a timer can be set to (2^31 - 1 ms, about 24.8 days); longer ones fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * Why a retry delay option over {@link MAX_TIMER_MS} is refused: Node fires a longer timer at
 * once, so the "pause" would become a tight retry loop.
 */
export function tooLongForATimer(what: string): string {
  return `${what} must be at most ${MAX_TIMER_MS} ms (about 24.8 days): a longer timer cannot be set`;
}

/**
 * A retry delay as a timer can take it. Our policies' options are bounded, but a custom
 * RetryPolicy may return anything, and a timer given more than {@link MAX_TIMER_MS} (or NaN, or
 * a negative) fires at once: a tight retry loop instead of a pause. NaN and negatives become 0;
 * longer delays (Infinity included) become the longest a timer can wait.
 */
export function timerDelayMs(delay: number): number {
  if (Number.isNaN(delay) || delay <= 0) return 0;
  return Math.min(delay, MAX_TIMER_MS);
}
