import { isZkError, type ZkSession } from '@zk-recipes/core';
import { pauseAfterLostSession, RetryBudget, type QueueSeat } from '@zk-recipes/core/recipe-kit';
import { ElectionMember } from './Election.js';
import { ElectionClosedError } from './errors.js';
import { LATCH_KIND } from './kinds.js';
import type { Leadership, Term } from './Leadership.js';
import { parseLatchOptions, parseWaitOptions, type LeaderLatchOptions, type LeadershipOptions } from './options.js';
import { LeadershipWaiters } from './waiters.js';

/** A latch's life: made, in the election, out of it for good. */
export type LatchState = 'latent' | 'started' | 'closed';

/**
 * Leader election as Curator's `LeaderLatch`: every participant that `start()`s joins the
 * election at `path` and stays in it until `close()`; the first of them leads. Node names and data
 * are Curator's (`_c_<uuid>-latch-<seq>`, the id as data), so Java services using Curator's
 * `LeaderLatch` on the same path share the election.
 *
 * Leadership is a grant of the lock-queue engine (docs/leader.md): given only on our own live node
 * and a session the server cannot have expired yet, and taken back (its `signal` aborts) the moment
 * it may be lost, before anyone else can be elected. After a lost session the latch joins again on
 * the next one with a new node (pausing as the session's retry policy says); it never carries the
 * old node's belief.
 *
 * Events ({@link LeaderEvents}, with `on`, `once` and `off` as an EventEmitter's):
 * - `isLeader(leadership)`: this participant leads; `leadership` is the term's {@link Leadership}.
 * - `notLeader(reason)`: its term ended, `reason` being its `signal`'s (`SESSION_LOST`,
 *   `NODE_DELETED`, ...); on `close()` only with `closeMode: 'notify-leader'`.
 * - `error(error)`: its retry policy gave up after a lost session (`RETRIES_EXHAUSTED`): the latch
 *   has left the election and closed itself.
 */
export class LeaderLatch extends ElectionMember {
  private current: LatchState = 'latent';
  private term: Term | undefined;
  /** Aborts the pending wait for leadership (`close()`, or the latch giving up). */
  private readonly leaving = new AbortController();
  private readonly waiters = new LeadershipWaiters();
  private readonly closeMode: 'silent' | 'notify-leader';
  /** The walk: joins, leads, joins again; settles once out of the election for good. */
  private walk: Promise<void> | undefined;
  /** Why the latch left the election by itself (its retry policy gave up, its session was closed). */
  private failure: Error | undefined;

  constructor(session: ZkSession, path: string, options?: LeaderLatchOptions) {
    const parsed = parseLatchOptions(options, 'LeaderLatch');
    super(session, path, LATCH_KIND, parsed.id, parsed.ownerData, 'leader-latch', `LeaderLatch ${String(path)}`);
    this.closeMode = parsed.closeMode ?? 'silent';
  }

  /** `latent` until `start()`, `started` while in the election, `closed` after `close()` (or a failure). */
  get state(): LatchState {
    return this.current;
  }

  /**
   * Joins the election (in the background: `leadership()` and `isLeader` tell when it leads).
   * Starting a started latch does nothing.
   * @throws ElectionClosedError (`ELECTION_CLOSED`) once closed: make a new latch to join again
   */
  start(): void {
    if (this.current === 'started') return;
    if (this.current === 'closed') throw this.outOfElection();
    this.current = 'started';
    this.walk = this.participate();
  }

  /**
   * Resolves with the current leadership once this participant leads (at once if it does now).
   * Leaving the wait (`timeoutMs`, `signal`) does not leave the election.
   * @throws LeadershipTimeoutError (`LEADERSHIP_TIMEOUT`), AbortedError (`ABORTED`),
   *   ElectionClosedError (`ELECTION_CLOSED`: not started, or closed meanwhile), or what ended the
   *   latch (`RETRIES_EXHAUSTED`, `SESSION_CLOSED`...)
   */
  leadership(options?: LeadershipOptions): Promise<Leadership> {
    let parsed: LeadershipOptions;
    try {
      parsed = parseWaitOptions(options, `${this.what}: leadership`);
    } catch (err) {
      return Promise.reject(err);
    }
    if (this.current !== 'started') return Promise.reject(this.outOfElection());
    const term = this.term;
    if (term?.held === true) return Promise.resolve(term);
    return this.waiters.wait(parsed, `${this.what}: leadership`);
  }

  /** Whether this participant leads now, checked as a grant is (see {@link Leadership.held}). */
  hasLeadership(): boolean {
    return this.term?.held === true;
  }

  /**
   * Leaves the election: a leader's `signal` aborts (`ELECTION_CLOSED`) at once, pending
   * `leadership()` calls reject, and our node is deleted; resolves once it is (if the connection
   * is down, once it is back or the session is gone). Idempotent.
   * @throws the server's refusal of the delete (`NO_AUTH`...): our node is still there
   */
  async close(): Promise<void> {
    if (this.current === 'started') {
      this.current = 'closed';
      const reason = new ElectionClosedError(`${this.what}: closed`);
      this.leaving.abort(reason);
      this.waiters.rejectAll(reason);
      this.term?.end(reason);
    }
    this.current = 'closed';
    await this.walk;
  }

  /** `await using latch = ...`: closes it. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /**
   * The walk: join, lead until the term ends, join again. A waiting node deleted by someone else
   * joins again at once; a leadership lost with the session pauses as the retry policy says
   * first, counting the losses since the last term (docs/architecture.md, "A waiter survives its
   * session": a waiter's own losses are counted by the engine).
   */
  private async participate(): Promise<void> {
    let losses: RetryBudget | undefined;
    while (this.current === 'started') {
      let seat: QueueSeat;
      try {
        seat = await this.join(this.leaving.signal);
      } catch (err) {
        if (this.current !== 'started') return;
        if (isZkError(err, 'NODE_DELETED')) continue;
        this.fail(err);
        return;
      }
      const term = this.beginTerm(seat);
      losses = undefined;
      if (this.current !== 'started') {
        term.end(this.failure ?? new ElectionClosedError(`${this.what}: closed`));
      } else if (!term.signal.aborted) {
        // A term that ended before it could be told (its seat's signal aborted meanwhile) is never handed out.
        this.term = term;
        this.waiters.resolveAll(term);
        this.emit('isLeader', term);
      }
      const reason = await term.ended;
      this.term = undefined;
      this.publishEnd(term);
      const closing = this.current !== 'started';
      if (!closing || this.closeMode === 'notify-leader') this.emit('notLeader', reason);
      try {
        await this.queue.leave(seat);
      } catch (err) {
        // Our node is still there: close() rejects with why (docs/errors.md, "Releasing").
        if (closing) throw err;
        this.fail(err);
        return;
      }
      if (closing) return;
      if (isZkError(reason, 'SESSION_LOST')) {
        losses ??= new RetryBudget(this.session.retryPolicy, this.what);
        try {
          await pauseAfterLostSession(this.session, this.what, reason, losses, undefined, this.leaving.signal);
        } catch (err) {
          if (this.current !== 'started') return;
          this.fail(err);
          return;
        }
      } else if (!isZkError(reason, 'NODE_DELETED')) {
        this.fail(reason);
        return;
      }
    }
  }

  /** Leaves the election for good because of `err`: told to every waiter and, unless the session was closed, as `error`. */
  private fail(err: unknown): void {
    const error = err instanceof Error ? err : new Error(String(err));
    this.current = 'closed';
    this.failure = error;
    this.leaving.abort(error);
    this.waiters.rejectAll(error);
    if (!isZkError(error, 'SESSION_CLOSED')) this.emit('error', error);
  }

  private outOfElection(): Error {
    if (this.current === 'latent') return new ElectionClosedError(`${this.what}: not started (call start() first)`);
    return this.failure ?? new ElectionClosedError(`${this.what}: closed`);
  }
}
