/**
 * Decides whether, and after how long, a failed ZooKeeper operation is tried again
 * (Curator's `RetryPolicy`). Policies are pure: they never sleep themselves.
 */
export interface RetryPolicy {
  /**
   * How the policy is named in errors, e.g. `retryNTimes(n: 3, sleepMs: 100)`: a
   * `RetriesExhaustedError` says which policy gave up. The built-in policies set it; a custom one
   * may (it is shown as `a custom retry policy` otherwise).
   */
  readonly name?: string;
  /**
   * @param retryCount how many retries were already made (0 before the first retry)
   * @param elapsedMs time since the first attempt started
   * @param error the failure that would be retried
   * @returns the delay in ms before the next attempt, or `null` to give up
   */
  nextDelayMs(retryCount: number, elapsedMs: number, error: unknown): number | null;
}

/** The policy's {@link RetryPolicy.name}, or what we call a policy without one. */
export function policyName(policy: RetryPolicy): string {
  return typeof policy.name === 'string' && policy.name.length > 0 ? policy.name : 'a custom retry policy';
}
