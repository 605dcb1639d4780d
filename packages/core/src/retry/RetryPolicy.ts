/**
 * Decides whether, and after how long, a failed ZooKeeper operation is tried again
 * (Curator's `RetryPolicy`). Policies are pure: they never sleep themselves.
 */
export interface RetryPolicy {
  /**
   * @param retryCount how many retries were already made (0 before the first retry)
   * @param elapsedMs time since the first attempt started
   * @param error the failure that would be retried
   * @returns the delay in ms before the next attempt, or `null` to give up
   */
  nextDelayMs(retryCount: number, elapsedMs: number, error: unknown): number | null;
  /**
   * How an error names this policy when it gives up (`RETRIES_EXHAUSTED`), e.g.
   * `retryNTimes(3, 1000)`. The built-in policies set it; a custom one may.
   */
  readonly name?: string;
}
