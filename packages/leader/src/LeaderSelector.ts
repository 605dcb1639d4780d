import { AbortedError, InvalidArgumentError, isZkError, SETTLE_SLACK_MS, type ZkSession } from '@zk-recipes/core';
import { followFirst, pauseAfterLostSession, RetryBudget, settleWithin, type QueueSeat } from '@zk-recipes/core/recipe-kit';
import { ElectionMember } from './Election.js';
import { ElectionClosedError, LeadershipTimeoutError } from './errors.js';
import { SELECTOR_KIND } from './kinds.js';
import type { Leadership, Term } from './Leadership.js';
import { parseSelectorOptions, parseWaitOptions, type LeaderSelectorOptions, type RunOptions } from './options.js';

/** What a {@link LeaderSelector} runs while it leads. */
export type LeaderFunction = (leadership: Leadership) => unknown;

/**
 * Leader election as Curator's `LeaderSelector`: `run(fn)` joins the election, runs `fn` while this
 * participant leads, and gives leadership up when `fn` returns or throws. Its node layout is
 * Curator's (an `InterProcessMutex` queue, `_c_<uuid>-lock-<seq>`, the id as data), so Java
 * services using Curator's `LeaderSelector` on the same path share the election.
 *
 * `fn` gets the term's {@link Leadership}: its `signal` aborts the moment leadership may be lost
 * (before anyone else can be elected), on `interruptLeadership()`, `close()` and the run's
 * `signal`; `fn` is expected to stop then. Our node is deleted only once `fn` has returned.
 *
 * Events ({@link LeaderEvents}, with `on`, `once` and `off` as an EventEmitter's):
 * - `isLeader(leadership)`: a term begins, just before `fn` runs with the same {@link Leadership}.
 * - `notLeader(reason)`: the term ended, `reason` being its `signal`'s.
 * - `error(error)`: with `autoRequeue`, what `fn` threw while it led (the run goes on).
 */
export class LeaderSelector extends ElectionMember {
  private closed = false;
  private readonly autoRequeue: boolean;
  /** Aborts every wait and term (`close()`). */
  private readonly leaving = new AbortController();
  /** The run in progress (never rejects: `close()` waits for it). */
  private running: Promise<void> | undefined;
  /** Deletes of our node that runs settled without (never reject: `close()` waits for them). */
  private readonly departures = new Set<Promise<void>>();
  private term: Term | undefined;
  /** The deletes of seats granted after their run's stop, still under way: `close()` waits for them. */
  private readonly givingBack = new Set<Promise<void>>();

  constructor(session: ZkSession, path: string, options?: LeaderSelectorOptions) {
    const parsed = parseSelectorOptions(options, 'LeaderSelector');
    super(session, path, SELECTOR_KIND, parsed.id, parsed.ownerData, 'leader-selector', `LeaderSelector ${String(path)}`);
    this.autoRequeue = parsed.autoRequeue ?? false;
  }

  /**
   * Waits for leadership, runs `fn(leadership)`, gives leadership up when it settles. Without
   * `autoRequeue`: resolves once that term is over, rejects with what `fn` threw: as soon as `fn`
   * settled, while our node's delete goes on underneath (`close()` waits for it; a delete the
   * server refuses is an `error` event). With `autoRequeue`: joins again after every term, once
   * its node is deleted (a throw while leading is emitted as `error`), and resolves once `close()`
   * or the run's `signal` ends it. One run at a time.
   * @throws LeadershipTimeoutError (`LEADERSHIP_TIMEOUT`), AbortedError (`ABORTED`, the run's
   *   signal before a term), ElectionClosedError (`ELECTION_CLOSED`), SESSION_CLOSED, RETRIES_EXHAUSTED
   */
  run(fn: LeaderFunction, options?: RunOptions): Promise<void> {
    let parsed: RunOptions;
    try {
      if (typeof fn !== 'function') throw new InvalidArgumentError(`${this.what}: run needs a function, got ${fn === null ? 'null' : typeof fn}`);
      parsed = parseWaitOptions(options, `${this.what}: run`);
    } catch (err) {
      return Promise.reject(err);
    }
    if (this.closed) return Promise.reject(new ElectionClosedError(`${this.what}: closed`));
    if (this.running !== undefined) return Promise.reject(new InvalidArgumentError(`${this.what}: already running (one run at a time; with autoRequeue it joins again by itself)`));
    const run = this.runTerms(fn, parsed);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.running = settled;
    void settled.then(() => {
      if (this.running === settled) this.running = undefined;
    });
    return run;
  }

  /** Whether this participant leads now, checked as a grant is (see {@link Leadership.held}). */
  hasLeadership(): boolean {
    return this.term?.held === true;
  }

  /**
   * Aborts the current term's leadership `signal` (`ABORTED`): the function is asked to stop; our
   * node goes once it returns. False when not leading.
   */
  interruptLeadership(): boolean {
    return this.term?.end(new AbortedError(`${this.what}: leadership interrupted`)) ?? false;
  }

  /**
   * Leaves the election: a wait rejects (`ELECTION_CLOSED`), a term's `signal` aborts; resolves once
   * the function has returned and our node's delete was answered (a refusal is an `error` event).
   * Idempotent.
   */
  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.leaving.abort(new ElectionClosedError(`${this.what}: closed`));
    }
    await this.running;
    await Promise.all([...this.departures, ...this.givingBack]);
  }

  /** `await using selector = ...`: closes it. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private async runTerms(fn: LeaderFunction, options: RunOptions): Promise<void> {
    const stop = followFirst(options.signal === undefined ? [this.leaving.signal] : [this.leaving.signal, options.signal]);
    const stopped = (): Error => {
      const reason: unknown = stop.signal.reason;
      return reason instanceof ElectionClosedError ? reason : new AbortedError(`${this.what}: run aborted`, { cause: reason });
    };
    let losses: RetryBudget | undefined;
    try {
      for (;;) {
        const seat = await this.elected(stop.signal, options.timeoutMs);
        if (seat === undefined) {
          if (this.autoRequeue) return;
          throw stopped();
        }
        losses = undefined;
        const { reason, thrown, ran, left } = await this.lead(seat, fn, stop.signal, stopped);
        if (ran && !this.autoRequeue) {
          this.departing(left);
          if (thrown !== undefined) throw thrown.error;
          return;
        }
        if (thrown !== undefined && thrown.whileLeading) this.emit('error', thrown.error);
        if (stop.signal.aborted) {
          this.departing(left);
          if (this.autoRequeue) return;
          throw stopped();
        }
        // Joining again: only once our node is gone (a refused delete ends the run with its error).
        await left;
        // Lost (a term that ended before its function could run included): join again.
        if (isZkError(reason, 'SESSION_LOST')) {
          losses ??= new RetryBudget(this.session.retryPolicy, this.what);
          try {
            await pauseAfterLostSession(this.session, this.what, reason, losses, undefined, stop.signal);
          } catch (err) {
            if (!stop.signal.aborted) throw err;
            if (this.autoRequeue) return;
            throw stopped();
          }
        } else if (isZkError(reason, 'SESSION_CLOSED')) {
          throw reason;
        }
      }
    } finally {
      stop.unlink();
    }
  }

  /**
   * Waits until elected; `undefined` when `stop` aborted first. A waiting node deleted by someone
   * else joins again, with what is left of the deadline.
   */
  private async elected(stop: AbortSignal, timeoutMs: number | undefined): Promise<QueueSeat | undefined> {
    const deadline = timeoutMs === undefined ? undefined : performance.now() + timeoutMs;
    for (;;) {
      const remaining = deadline === undefined ? undefined : Math.max(0, Math.ceil(deadline - performance.now()));
      try {
        const seat = await this.join(stop, remaining);
        if (!stop.aborted) return seat;
        await this.giveBack(seat);
        return undefined;
      } catch (err) {
        if (stop.aborted) return undefined;
        if (isZkError(err, 'NODE_DELETED')) continue;
        if (isZkError(err, 'LOCK_TIMEOUT')) throw new LeadershipTimeoutError(`${this.what}: not elected within ${timeoutMs} ms`, { cause: err });
        throw err;
      }
    }
  }

  /**
   * Our node's delete after a term that ends the run: the run settles without it (the term is over
   * from the moment the function returned); `close()` waits for it, and a delete the server refuses
   * is an `error` event (our node stays first in the election until the session ends).
   */
  private departing(left: Promise<void>): void {
    const departure = left.then(
      () => undefined,
      (err: unknown) => {
        this.emit('error', err);
      },
    );
    this.departures.add(departure);
    void departure.then(() => this.departures.delete(departure));
  }

  /**
   * A seat granted in the turn the run's signal aborted loses: its node is deleted, waited for no
   * longer than the slack (docs/architecture.md, "Deadlines": a stalled server must not hold the
   * caller past its abort); the delete goes on meanwhile, and `close()` waits for it.
   */
  private async giveBack(seat: QueueSeat): Promise<void> {
    const leaving = this.queue.leave(seat).catch(() => undefined); // refused: nothing more to do, as for any waiter
    this.givingBack.add(leaving);
    void leaving.then(() => this.givingBack.delete(leaving));
    await settleWithin(leaving, performance.now() + SETTLE_SLACK_MS);
  }

  /** One term: runs `fn` while we lead, then starts giving our node back (`left`). */
  private async lead(
    seat: QueueSeat,
    fn: LeaderFunction,
    stop: AbortSignal,
    stopped: () => Error,
  ): Promise<{ reason: Error; ran: boolean; thrown?: { error: unknown; whileLeading: boolean }; left: Promise<void> }> {
    const term = this.beginTerm(seat);
    this.term = term;
    const onStop = (): void => {
      term.end(stopped());
    };
    stop.addEventListener('abort', onStop, { once: true });
    // Closed (or the run's signal aborted) since the grant: the term ends before it begins.
    if (stop.aborted) onStop();
    void term.ended.then((reason) => {
      this.publishEnd(term);
      this.emit('notLeader', reason);
    });
    let thrown: { error: unknown; whileLeading: boolean } | undefined;
    // A term that ended before it could begin (its seat's signal aborted meanwhile) runs nothing.
    const ran = !term.signal.aborted;
    if (ran) {
      this.emit('isLeader', term);
      try {
        await fn(term);
      } catch (error) {
        thrown = { error, whileLeading: !term.signal.aborted };
      }
    }
    stop.removeEventListener('abort', onStop);
    term.end(new AbortedError(`${this.what}: the term is over (the function ${thrown === undefined ? 'returned' : 'threw'})`));
    this.term = undefined;
    // The node goes only now: while the function runs, nobody else may be elected.
    const left = this.queue.leave(seat);
    left.catch(() => undefined); // awaited, or told as `error`, by the caller
    return { reason: term.reason!, ran, left, ...(thrown === undefined ? {} : { thrown }) };
  }
}
