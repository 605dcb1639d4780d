import { isZkError, SessionLostError, type NodeDeletedError } from '../errors.js';
import type { QueueEntry } from '../nodes/index.js';
import { decideWithHints, type HintedDecision } from './OrderingRule.js';
import { Recheck } from '../signals/Recheck.js';
import type { StopSignal } from '../signals/StopSignal.js';
import type { WatchedListing } from '../watch/ChildrenWatch.js';
import type { AnyOfSink, AnyOfWait } from './AnyOfWait.js';
import type { ObstacleWait, WaitResult, WaitSink } from './ObstacleWait.js';
import type { OwnNodeSink, OwnNodeWatch, QueueNode, QueueSeat } from './ownNode.js';
import type { Created, EnterOptions, QueueOps, Survival } from './QueueOps.js';
import type { RetryBudget } from '../retry/RetryBudget.js';
import { sessionEnded } from './sessionEnded.js';
import { debugDecision, debugEnqueued, debugFailed, debugGranted, debugWaitEnded } from '../diagnostics/debug.js';

/** A contender's wait for any of several nodes (see `Contender.nodeGone`). */
interface AnyOfState {
  wait: AnyOfWait;
  /** The last listing decided on, without the nodes seen gone since. */
  queue: QueueEntry[];
  /** A listing asked for while the wait goes on is on its way. */
  relisting: boolean;
  /** An outside change made it list: follow the next change once that listing is decided on. */
  followRecheck: boolean;
}

/**
 * One acquisition walking the queue (docs/architecture.md, "The lock-queue engine"): enqueue → decide → wait for what the rule names →
 * decide again … → hold; on any failure, leave (delete our node) and reject.
 *
 * A small state machine, not an async function: a process may park ten thousand contenders, and
 * a suspended async frame with its promises costs about as much again as this object. Each step's
 * ZooKeeper work is the queue's ({@link QueueOps}); this class only sequences the steps.
 */
export class Contender implements WaitSink, AnyOfSink, OwnNodeSink {
  /** Settles with our seat once held; rejects with LOCK_TIMEOUT, ABORTED, SESSION_LOST or the failure. */
  readonly done: Promise<QueueSeat>;
  private resolve!: (seat: QueueSeat) => void;
  private reject!: (reason: unknown) => void;
  private readonly stop: StopSignal;
  private readonly recheck: Recheck | undefined;
  /** The ZooKeeper session (generation) we enqueue in, and its signal, as of the start. */
  private readonly generation: number;
  private readonly sessionSignal: AbortSignal;
  private seat: QueueNode | undefined;
  /** The watch on our own node, from the moment it is seated (see {@link OwnNodeWatch}). */
  private own: OwnNodeWatch | undefined;
  /** Held or failed: nothing a wait still reports can change the outcome. */
  private finished = false;
  /** The wait for one node under way, if any (a newer listing may keep it: see `listedAhead`). */
  private nodeWait: ObstacleWait | undefined;
  /** The nodes behind the one we wait for, in the queue we decided on (see `decideBehindIfHeld`). */
  private behindWaitedFor: QueueEntry[] | undefined;
  /**
   * A wait for any of several nodes, with the queue it decides on: the last listing without the
   * nodes seen gone since (see `waitForAnyOf`).
   */
  private anyOf: AnyOfState | undefined;

  constructor(
    private readonly queue: QueueOps,
    private readonly options: EnterOptions,
    /** Enqueues again after the loss of our session, if the facade allows it (see {@link Survival}). */
    private readonly survival?: Survival,
    /** When this attempt began: its `timeoutMs` counts from it (and, at the first loss, the policy's time). */
    private readonly startedAt: number = performance.now(),
    /** The sessions this acquisition lost so far, counted against the policy (made at the first loss). */
    private readonly losses?: RetryBudget,
  ) {
    this.done = new Promise<QueueSeat>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    const session = queue.session;
    this.generation = session.generation;
    this.sessionSignal = session.sessionSignal;
    this.stop = queue.stopFor(options);
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
    if (this.finished) return;
    this.nodeWait = undefined;
    debugWaitEnded(this.seat!.path, typeof next === 'string' ? next : 'listed');
    if (next === 'held') {
      this.hold(false);
    } else if (next === 'passed') {
      if (!this.ownNodeKnown()) return;
      // The node we waited for went as a holder, so did every node ahead of it: decide on the rest.
      const rest = this.behindWaitedFor!;
      this.decideOn(rest, rest.findIndex((entry) => entry.name === this.seat!.name), false, undefined);
    } else if (next === 'relist') {
      // Sent at the end of this run, not a turn later: the waiters woken with us are told in it.
      this.queue.list(this.stop, 'run').then(
        (children) => this.decide(children, undefined),
        (err: unknown) => this.fail(err),
      );
    } else {
      this.decide(next, undefined);
    }
  }

  /** The wait for the children ended: a listing it made (its watch armed), or list again. */
  private childrenWaited(next: WatchedListing | 'relist'): void {
    if (this.finished) return;
    if (next === 'relist') this.waited('relist');
    else this.decide(next.children, next);
  }

  /**
   * @internal The node ahead of the one we wait for went, and this listing was made since: decide
   * on it; a decision to wait for the same node keeps the wait (it may be our last obstacle now).
   */
  listedAhead(children: string[]): void {
    if (this.finished) return;
    this.decide(children, undefined);
  }

  /** The wait we started failed. */
  waitFailed(reason: unknown): void {
    if (this.finished) return;
    this.nodeWait = undefined;
    if (this.stop.aborted) this.fail(this.stop.reason);
    // The watch's request went down with the connection: list again once it is back.
    else if (isZkError(reason, 'CONNECTION_LOSS')) this.waited('relist');
    else this.fail(reason);
  }

  private seated(created: Created): void {
    // Its watch is set at the first decision that waits (see decideOn).
    const own = this.queue.seat(created.path, this, this.options.onRevoke !== undefined);
    this.own = own;
    this.seat = {
      path: created.path,
      name: created.name,
      fencingToken: created.fencingToken,
      generation: this.generation,
      signal: this.sessionSignal,
      ghostGuid: created.ghostGuid,
    };
    debugEnqueued(created.path);
    this.decide(created.children, undefined);
  }

  /** @internal Our node went while we waited: whatever we wait for, the lock is not ours. */
  ownNodeGone(error: NodeDeletedError): void {
    if (this.finished) return;
    this.stop.abortWith(error); // ends the wait under way (it reports the stop, as below)
    this.endWaits();
    this.fail(error);
  }

  /** @internal A revocation request while we wait is told at the grant (OwnNodeWatch keeps it). */
  revocationRequested(): void {}

  /**
   * Whether a shortcut (a decision without a fresh listing) may grant: our node is known to exist.
   * If it is gone we fail; if we cannot tell (its watch is not set, or the connection dropped since),
   * we list again, which proves it either way.
   */
  private ownNodeKnown(): boolean {
    const state = this.own!.state;
    if (state === 'present') return true;
    if (state === 'gone') this.fail(this.stop.reason ?? this.own!.deletedBy);
    else this.waited('relist');
    return false;
  }

  /**
   * A node the current {@link AnyOfWait} watches is gone: decide again on the queue we waited on,
   * without it (`reuseListing`). No listing: nodes never appear ahead of ours, so that queue holds
   * every node still ahead (and maybe some gone unseen): a grant decided on it is exact.
   */
  nodeGone(name: string): void {
    const current = this.anyOf;
    if (current === undefined || this.finished) return;
    debugWaitEnded(this.seat!.path, name);
    const queue = current.queue.filter((entry) => entry.name !== name);
    current.queue = queue;
    // Told before the listing on its way was answered: that listing was served after it.
    if (current.relisting) return;
    if (!this.ownNodeKnown()) {
      this.endAnyOf();
      return;
    }
    this.decideOn(queue, queue.findIndex((entry) => entry.name === this.seat!.name), false, undefined);
  }

  /**
   * Lists again while the wait for any of several nodes goes on: its watches stay, and the fresh
   * decision adds to them (see {@link decideOn}). Departures told meanwhile were served before the
   * listing, which shows them.
   */
  private relistKeepingWatches(current: AnyOfState): void {
    if (current.relisting) return;
    current.relisting = true;
    this.queue.list(this.stop, 'run').then(
      (children) => {
        if (this.anyOf !== current || this.finished) return;
        current.relisting = false;
        this.decide(children, undefined);
        if (current.followRecheck && this.anyOf === current) this.followRecheck(current);
      },
      (err: unknown) => this.fail(err),
    );
  }

  /** An outside change (a `SharedCount`) makes `current` list again, and then follow the next one. */
  private followRecheck(current: AnyOfState): void {
    current.followRecheck = false;
    this.recheck?.next().then(() => {
      if (this.anyOf !== current || this.finished) return;
      current.followRecheck = true;
      this.relistKeepingWatches(current);
    });
  }

  /** A node appeared ahead of us (see `relistIfCreated`): decide again on a fresh listing. */
  changedAhead(): void {
    this.anyOf = undefined;
    this.waited('relist');
  }

  /** The {@link AnyOfWait} failed (stopped, or a watch could not be set). */
  anyOfFailed(reason: unknown): void {
    this.anyOf = undefined;
    this.waitFailed(reason);
  }

  /**
   * Steps 2 and 3 on a fresh listing: ask the rule about `children`; hold, or wait for what it names.
   * @param armed the child watch the listing `children` came with, if any
   */
  private decide(children: string[], armed: WatchedListing | undefined): void {
    if (this.finished) return;
    // A fresh listing proves our node (a watch on it is set in decideOn if we wait).
    let place: { queue: QueueEntry[]; ownIndex: number };
    try {
      place = this.queue.placeIn(children, this.seat!, this.stop);
    } catch (err) {
      this.endWaits();
      this.fail(err);
      return;
    }
    this.decideOn(place.queue, place.ownIndex, true, armed, children);
  }

  /**
   * Asks the rule about `queue` (a fresh listing, or the last one without nodes seen gone) and
   * acts on the answer.
   */
  private decideOn(queue: readonly QueueEntry[], ownIndex: number, fresh: boolean, armed: WatchedListing | undefined, children?: string[]): void {
    const { options, stop, recheck, seat } = this;
    let decision: HintedDecision;
    try {
      recheck?.arm();
      decision = decideWithHints(options.rule, queue, ownIndex);
    } catch (err) {
      this.endWaits();
      this.fail(err);
      return;
    }
    debugDecision(seat!.path, decision);
    // Our node's watch (docs/architecture.md, "A grant requires our node"), set now if it is not:
    // before any wait begins, so that its deletion, if first, is read first. A grant on a fresh
    // listing, which proved the node, needs it only while held: the holding sets it a turn after
    // the grant, unless released by then (OwnNodeWatch.held).
    if (!(decision.held && fresh)) this.own!.arm();
    const anyOf = this.anyOf;
    if ('waitForAnyOf' in decision && anyOf !== undefined && anyOf.wait.watchesForCreation(decision.relistIfCreated)) {
      if (fresh) {
        // Decided on a fresh listing: wait on it, watching what it names besides.
        anyOf.queue = [...queue];
        anyOf.wait.add(decision.waitForAnyOf);
      } else if (!anyOf.wait.covers(decision.waitForAnyOf)) {
        // It names a node we do not watch, which may have gone unseen: ask the server.
        this.relistKeepingWatches(anyOf);
      }
      return; // still waiting for the nodes we watch
    }
    // A grant leaves the watches a wait for several nodes still has: each fires once, told to no
    // one, where removing them would cost a request each (docs/architecture.md, "Counting semaphores").
    this.endAnyOf(decision.held);
    const current = this.nodeWait;
    this.nodeWait = undefined;
    if (current !== undefined && 'waitFor' in decision && current.keeps(decision)) {
      // Still the same node to wait for, on a newer listing (the node ahead of it went).
      this.behindWaitedFor = this.behindOf(decision, queue);
      this.nodeWait = current;
      current.update(decision);
      return;
    }
    current?.cancel();
    if (decision.held) {
      this.hold(fresh);
      return;
    }
    // A deadline deferred for the first look fires now that the look says "wait".
    stop.firstLookDone();
    if (stop.aborted) {
      this.fail(stop.reason);
      return;
    }
    if ('waitForAnyOf' in decision) {
      const wait = this.queue.waitForAnyOf(stop, this);
      const current: AnyOfState = { wait, queue: [...queue], relisting: false, followRecheck: false };
      this.anyOf = current;
      // Deciding without listing notices our own node's deletion through its own watch.
      wait.begin(decision.waitForAnyOf, decision.relistIfCreated);
      this.followRecheck(current);
    } else if ('waitForChildren' in decision) {
      this.queue.waitForChildren(children ?? queue.map((entry) => entry.name), armed, recheck, stop).then(
        (next) => this.childrenWaited(next),
        (err: unknown) => this.waitFailed(err),
      );
    } else {
      this.behindWaitedFor = this.behindOf(decision, queue);
      this.nodeWait = this.queue.waitFor(decision, recheck, stop, this);
    }
  }

  /** `decideBehindIfHeld`: the nodes behind the one we wait for, in the queue we decided on. */
  private behindOf(decision: Extract<HintedDecision, { waitFor: string }>, queue: readonly QueueEntry[]): QueueEntry[] | undefined {
    return decision.decideBehindIfHeld === true ? queue.slice(queue.findIndex((entry) => entry.name === decision.waitFor) + 1) : undefined;
  }

  /** Ends the waits under way, if any (their leftover watches are removed). */
  private endWaits(): void {
    this.endAnyOf();
    const current = this.nodeWait;
    this.nodeWait = undefined;
    current?.cancel();
  }

  /**
   * Ends the current {@link AnyOfWait}, if any: its leftover watches are removed from the server,
   * or with `leaveWatches` left to fire once unheard.
   */
  private endAnyOf(leaveWatches = false): void {
    const current = this.anyOf;
    this.anyOf = undefined;
    if (leaveWatches) current?.wait.abandon();
    else current?.wait.cancel();
  }

  /**
   * Grants the lock (docs/architecture.md, "A grant requires our node"): only while our node is
   * known to exist, and while the server cannot yet have expired our session (events read late,
   * after a stall of this process, prove nothing).
   * @param proven a fresh listing, which showed our node, is what we decided on
   */
  private hold(proven: boolean): void {
    // A grant that comes after the stop (its deadline, the caller's abort) loses: our node goes.
    if (this.stop.aborted) {
      this.fail(this.stop.reason);
      return;
    }
    if (!proven && !this.ownNodeKnown()) return;
    if (this.own!.state === 'gone') {
      this.fail(this.stop.reason ?? this.own!.deletedBy);
      return;
    }
    const grantedAt = this.queue.session.aliveAt(this.generation);
    if (grantedAt === undefined || this.sessionSignal.aborted) {
      this.fail(this.stop.reason ?? new SessionLostError(`${this.queue.what}: the ZooKeeper session was lost`, { cause: this.sessionSignal.reason }));
      return;
    }
    const seat = this.queue.holdSeat(this.seat!, this.sessionSignal, this.options.onRevoke, grantedAt);
    this.seat = seat;
    debugGranted(seat.path, seat.fencingToken);
    this.finish();
    this.resolve(seat);
  }

  /** Leaves the queue if we had a node, then rejects (with why the stop fired, if it did). */
  private fail(err: unknown): void {
    if (this.finished) return;
    this.finished = true;
    const seat = this.seat;
    debugFailed(this.queue.what, seat?.path, this.stop.reason ?? err);
    if (seat === undefined) {
      this.finish();
      this.rejectOrSurvive(this.stop.reason ?? err);
      return;
    }
    let leaveFailed: { error: unknown } | undefined;
    const leaving = this.queue.leave(seat).catch((leaveErr: unknown) => {
      leaveFailed = { error: leaveErr };
    });
    this.queue.inBackground(leaving);
    // The delete of our node is waited for, but past a deadline or an abort no longer than the
    // slack: a stalled server must not hold the caller (docs/architecture.md, "Deadlines"). It
    // goes on in the background meanwhile.
    void this.stop.settleWithin(leaving).then(() => {
      this.finish();
      if (leaveFailed !== undefined) this.reject(this.stop.reason ?? leaveFailed.error);
      // A call that failed because the session went (CONNECTION_LOSS first, then lost) reports why.
      else this.rejectOrSurvive(this.stop.reason ?? err);
    });
  }

  /**
   * Rejects, unless we never held and our session is what we lost: then the facade may enqueue
   * us again on the next one (docs/architecture.md, "A waiter survives its session"), and this
   * acquisition settles as that attempt does. Nothing is allocated for it until a session is lost.
   */
  private rejectOrSurvive(reason: unknown): void {
    if (this.survival === undefined) {
      this.reject(reason);
      return;
    }
    if (isZkError(reason, 'NODE_DELETED') && this.seat !== undefined) {
      // Our node may have gone with our session: the server sends the deletions of a session's
      // ephemeral nodes before it closes its connection, so ours can be read before the session's
      // end is known. One request tells (on this failure path only).
      const { timeoutMs } = this.options;
      const left = timeoutMs === undefined ? undefined : Math.max(0, this.startedAt + timeoutMs - performance.now());
      sessionEnded(this.queue.session, this.generation, left, this.options.signal).then(
        (ended) => (ended ? this.survive(new SessionLostError(`${this.queue.what}: the ZooKeeper session was lost`, { cause: reason })) : this.reject(reason)),
        () => this.reject(reason),
      );
      return;
    }
    if (isZkError(reason, 'SESSION_LOST')) this.survive(reason);
    else this.reject(reason);
  }

  /** Enters again on the session's next ZooKeeper session (see {@link Survival}). */
  private survive(reason: unknown): void {
    this.survival!.enterAgain(this.options, this.startedAt, this.losses, reason).then(this.resolve, this.reject);
  }

  private finish(): void {
    this.finished = true;
    this.stop.dispose();
    this.recheck?.dispose();
  }
}
