import { isZkError } from '../errors.js';
import { joinPath } from '../nodes/index.js';
import type { EnterOptions, Created, LockQueue } from './LockQueue.js';
import { localSeats, type LocalSeatState } from './localSeats.js';
import type { Decision } from './OrderingRule.js';
import type { QueueSeat } from './QueueSeat.js';
import { Recheck } from './recheck.js';
import { StopSignal } from './stopSignal.js';
import type { WaitResult, WaitSink, WatchedListing } from './waitResult.js';

/**
 * One acquisition walking the queue (DESIGN.md): enqueue → decide → wait for what the rule names →
 * decide again … → hold; on any failure, leave (delete our node) and reject.
 *
 * A small state machine, not an async function: a process may park ten thousand contenders, and
 * a suspended async frame with its promises costs about as much again as this object. Each step's
 * ZooKeeper work is the queue's ({@link LockQueue}); this class only sequences the steps.
 */
export class Contender implements WaitSink {
  /** Settles with our seat once held; rejects with LOCK_TIMEOUT, ABORTED, SESSION_LOST or the failure. */
  readonly done: Promise<QueueSeat>;
  private resolve!: (seat: QueueSeat) => void;
  private reject!: (reason: unknown) => void;
  private readonly stop: StopSignal;
  private readonly recheck: Recheck | undefined;
  /** The ZooKeeper session (generation) we enqueue in, and its signal, as of the start. */
  private readonly generation: number;
  private readonly sessionSignal: AbortSignal;
  private seat: QueueSeat | undefined;
  private state: LocalSeatState | undefined;
  /** Whether we have waited at all (a holder at its first look needs no announcement). */
  private hasWaited = false;
  /** The node right behind ours in the last listing, if any. */
  private behind: string | undefined;
  /** The last wait's decision asked us to announce when it ends with the lock (see exclusiveRule). */
  private announceAfterWait = false;

  constructor(
    private readonly queue: LockQueue,
    private readonly options: EnterOptions,
  ) {
    this.done = new Promise<QueueSeat>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    const session = queue.session;
    this.generation = session.generation;
    this.sessionSignal = session.sessionSignal;
    this.stop = new StopSignal({
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      sessionSignal: this.sessionSignal,
      isConnected: queue.isConnected,
      what: queue.what,
    });
    this.recheck = options.onRecheck === undefined ? undefined : new Recheck(options.onRecheck);
  }

  /** Step 1: create our node (with the listing pipelined behind it). */
  start(): void {
    if (this.stop.aborted) {
      this.fail(this.stop.reason);
      return;
    }
    this.queue.enqueue(this.options, this.stop).then(
      (created) => this.seated(created),
      (err: unknown) => this.fail(err),
    );
  }

  /** The wait we started ended: act on it (see {@link WaitResult}). */
  waited(next: WaitResult): void {
    if (next === 'held') {
      // Held without a fresh listing: a waiter may have queued right behind us since our last one.
      this.hold(this.announceAfterWait && (this.behind === undefined || !this.isLocal(this.behind)));
    } else if (next === 'relist') {
      this.queue.listAfterReconnect(this.stop).then(
        (children) => this.decide(children, undefined),
        (err: unknown) => this.fail(err),
      );
    } else if (next === 'relist-watched') {
      this.queue.listWatchedAfterReconnect(this.stop).then(
        (listing) => this.decide(listing.children, listing),
        (err: unknown) => this.fail(err),
      );
    } else if (Array.isArray(next)) {
      this.decide(next, undefined);
    } else {
      this.decide(next.children, next);
    }
  }

  /** The wait we started failed. */
  waitFailed(reason: unknown): void {
    if (this.stop.aborted) this.fail(this.stop.reason);
    // The watch's request went down with the connection: list again once it is back.
    else if (isZkError(reason, 'CONNECTION_LOSS')) this.waited('relist');
    else this.fail(reason);
  }

  private seated(created: Created): void {
    const state: LocalSeatState = { held: false };
    localSeats(this.queue.session).set(created.path, state);
    this.state = state;
    this.seat = { path: created.path, name: created.name, fencingToken: created.fencingToken, generation: this.generation, signal: this.sessionSignal };
    this.decide(created.children, undefined);
  }

  /**
   * Steps 2 and 3: ask the rule about `children`; hold, or wait for what it names.
   * @param armed the child watch the listing `children` came with, if any
   */
  private decide(children: string[], armed: WatchedListing | undefined): void {
    const { queue, options, stop, recheck } = this;
    const seat = this.seat!;
    let decision: Decision;
    let ownIndex: number;
    let length: number;
    try {
      const place = queue.placeIn(children, seat, stop);
      recheck?.arm();
      decision = options.rule(place.queue, place.ownIndex);
      ownIndex = place.ownIndex;
      length = place.queue.length;
      this.behind = place.queue[ownIndex + 1]?.name;
      stop.firstLookDone();
    } catch (err) {
      this.fail(err);
      return;
    }
    if (decision.held) {
      if (decision.nudgeSuccessor === true && ownIndex < length - 1) queue.nudge(seat, options.data);
      // Only a waiter that listed while we still waited can need it, and such a waiter is in this
      // listing: the one right behind us, if another process's.
      const behind = this.behind;
      this.hold(decision.announceHolding === true && this.hasWaited && behind !== undefined && !this.isLocal(behind));
      return;
    }
    this.hasWaited = true;
    if ('waitForChildren' in decision) {
      this.announceAfterWait = false;
      queue.waitForChildren(children, armed, recheck, stop).then(
        (next) => this.waited(next),
        (err: unknown) => this.waitFailed(err),
      );
    } else {
      this.announceAfterWait = decision.announceHolding === true;
      queue.waitForNode(seat, decision, options.rule, recheck, stop, this);
    }
  }

  /** Whether `name` in our directory is a node of this process (session). */
  private isLocal(name: string): boolean {
    return localSeats(this.queue.session).has(joinPath(this.queue.path, name));
  }

  /** @param announce touch our node so the (other process's) waiter behind us knows we hold */
  private hold(announce: boolean): void {
    this.state!.held = true;
    if (announce) this.queue.nudge(this.seat!, this.options.data);
    this.finish();
    this.resolve(this.seat!);
  }

  /** Leaves the queue if we had a node, then rejects (with why the stop fired, if it did). */
  private fail(err: unknown): void {
    const seat = this.seat;
    if (seat === undefined) {
      this.finish();
      this.reject(this.stop.reason ?? err);
      return;
    }
    this.queue.leave(seat).then(
      () => {
        this.finish();
        // A call that failed because the session went (CONNECTION_LOSS first, then lost) reports why.
        this.reject(this.stop.reason ?? err);
      },
      (leaveErr: unknown) => {
        this.finish();
        this.reject(this.stop.reason ?? leaveErr);
      },
    );
  }

  private finish(): void {
    this.stop.dispose();
    this.recheck?.dispose();
  }
}
