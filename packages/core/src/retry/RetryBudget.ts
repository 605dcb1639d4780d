import { RetriesExhaustedError } from '../errors.js';
import { policyName, type RetryPolicy } from './RetryPolicy.js';
import { timerDelayMs } from './timerLimit.js';

/**
 * The retries of one operation, however many requests it takes (an acquisition: its create, its
 * listings, its waits): one count of failures and one clock for all of them, so the policy sees
 * what the operation has been through and `retryNTimes` or `retryUntilElapsed` can end it
 * (docs/architecture.md, "Retries").
 */
export class RetryBudget {
  private failures = 0;
  private readonly startedAt: number;

  private readonly now: () => number;

  constructor(
    /** The policy that decides whether another attempt may follow. */
    readonly policy: RetryPolicy,
    /** Names the operation in the error, e.g. `lock /locks/a`. */
    private readonly what: string,
    options: {
      /** When the operation's first attempt started (a budget made at its first failure says so). */
      startedAt?: number;
      /** The clock, `performance.now` by default; injectable for tests. */
      now?: () => number;
    } = {},
  ) {
    this.now = options.now ?? (() => performance.now());
    this.startedAt = options.startedAt ?? this.now();
  }

  /** How many failures were counted so far. */
  get attempts(): number {
    return this.failures;
  }

  /**
   * Counts `err` and returns how long to wait before trying again (bounded to what a timer can
   * wait: a policy bug must not become a tight loop or a timer warning).
   * @throws RetriesExhaustedError (`RETRIES_EXHAUSTED`, `cause` = `err`) when the policy gives up
   */
  delayAfter(err: unknown): number {
    const delay = this.policy.nextDelayMs(this.failures, this.now() - this.startedAt, err);
    this.failures++;
    if (delay === null) {
      const policy = policyName(this.policy);
      const reason = err instanceof Error ? err.message : String(err);
      throw new RetriesExhaustedError(`${this.what}: ${policy} gave up after ${this.failures} failed attempt${this.failures === 1 ? '' : 's'} (last: ${reason})`, {
        cause: err,
        policy,
        attempts: this.failures,
      });
    }
    return timerDelayMs(delay);
  }
}
