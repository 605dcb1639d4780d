import { isZkError } from '../errors.js';
import { RetryBudget } from '../retry/RetryBudget.js';
import type { StopSignal } from '../signals/StopSignal.js';
import type { ZkSession } from '../session/ZkSession.js';
import type { EngineScope } from './EngineScope.js';

/**
 * How a queue's steps outlive a lost connection (docs/architecture.md, "Retries"): each step that
 * fails with `CONNECTION_LOSS` pauses as the session's retry policy says and waits to be connected,
 * with a budget of its own counted from the step's start; the acquisition ends only at its
 * deadline, its abort, the session's end, or when the policy gives up.
 */
export class StepRetries {
  private readonly session: ZkSession;

  constructor(
    private readonly scope: EngineScope,
    /** For error messages: `lock <path>`. */
    private readonly what: string,
  ) {
    this.session = scope.session;
  }

  /**
   * Runs `step` once connected until the server answers it: a lost connection is the retry
   * policy's business, never the caller's. `step` must be safe to send again (a read, or a write
   * that tolerates it).
   */
  async untilAnswered<T>(stop: StopSignal, step: () => Promise<T>): Promise<T> {
    const startedAt = performance.now();
    let retries: RetryBudget | undefined; // made at the first failure: none on the common path
    for (;;) {
      await this.whenConnected(stop);
      try {
        return await stop.race(step());
      } catch (err) {
        if (stop.aborted || !isZkError(err, 'CONNECTION_LOSS')) throw err;
        retries ??= this.from(startedAt);
        await this.pauseBeforeRetry(retries, err, stop);
      }
    }
  }

  /** The retries of one step under the session's policy, counted from `startedAt`. */
  from(startedAt: number): RetryBudget {
    return new RetryBudget(this.session.retryPolicy, this.what, { startedAt });
  }

  /**
   * Pauses before retrying a step as the session's retry policy says, then waits to be connected;
   * the stop ends the pause at once.
   * @throws RetriesExhaustedError (`RETRIES_EXHAUSTED`) when the policy gives up
   */
  async pauseBeforeRetry(retries: RetryBudget, err: unknown, stop: StopSignal): Promise<void> {
    await this.pauseThenReconnect(retries.delayAfter(err), stop.signal);
  }

  /**
   * Waits `delayMs` (a timer's range), then until connected; `signal` ends both at once. It is
   * followed through the session's fan-out: the clean-ups of thousands of acquisitions given up in
   * one blip all pause on the session's signal (docs/architecture.md, "Bounded recovery").
   */
  async pauseThenReconnect(delayMs: number, signal: AbortSignal): Promise<void> {
    if (!signal.aborted) {
      await new Promise<void>((resolve) => {
        let unfollow: (() => void) | undefined;
        const timer = setTimeout(() => {
          unfollow?.();
          resolve();
        }, delayMs);
        unfollow = this.scope.fanOut.onAbort(signal, () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    await this.session.waitForConnected(signal).catch(() => undefined);
  }

  /** Resolves once connected (at once if we are: no AbortSignal made on the hot path). */
  private whenConnected(stop: StopSignal): Promise<void> | undefined {
    if (this.session.isConnected) return undefined;
    return stop.race(this.session.waitForConnected(stop.signal));
  }
}
