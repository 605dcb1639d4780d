import { AbortedError, InvalidArgumentError, isZkError, LockTimeoutError, SessionLostError } from '../errors.js';
import { joinPath, newProtectedName, sortedChildren, type QueueEntry } from '../nodes/index.js';
import { RetryBudget } from '../retry/RetryBudget.js';
import { abortableSleep } from '../retry/retryLoop.js';
import type { ZkSession } from '../session/ZkSession.js';
import { Contender } from './Contender.js';
import { engineScopeOf, type EngineScope } from './EngineScope.js';
import type { DirectoryRecord } from './lockDirectory.js';
import { assertLockNodeFits } from './lockNodeSize.js';
import { isSeatLost, loseSeat, onSeatLost, seatLossReason } from './holding.js';
import type { OwnNodeSink, QueueNode, QueueSeat } from './ownNode.js';
import type { AbortFanOut, StopSignal } from '../signals/StopSignal.js';
import type { EnterOptions, Survival } from './QueueOps.js';
import { ZkQueueOps } from './ZkQueueOps.js';

/** Options of a {@link LockQueue}. */
export interface LockQueueOptions {
  /** A value every contender must agree on, kept as the directory's data (see {@link DirectoryRecord}). */
  record?: DirectoryRecord | undefined;
}

/**
 * The lock-queue engine's face (docs/architecture.md, "The lock-queue engine"): enqueue → decide →
 * wait → hold → leave. Every recipe is this walk with its own ordering rule. Each {@link enter}
 * builds a `Contender` (the walk) over the queue's `ZkQueueOps` (its ZooKeeper work);
 * deadlines, aborts and cleanup live there.
 */
export class LockQueue {
  /** The session's engine state, handed down to everything this queue builds. */
  private readonly scope: EngineScope;
  private readonly ops: ZkQueueOps;
  /** Enters again after a lost session: one object per queue, nothing per acquisition. */
  private readonly survival: Survival = { enterAgain: (options, startedAt, losses, reason) => this.enterAgain(options, startedAt, losses, reason) };

  constructor(
    /** The session our nodes are made in. */
    readonly session: ZkSession,
    /** The lock directory; our nodes are its children. */
    readonly path: string,
    options: LockQueueOptions = {},
  ) {
    // Every recipe builds one: a wrong first argument fails here, not later as a TypeError.
    assertSession(session);
    this.scope = session.scope.get(engineScopeOf);
    this.ops = new ZkQueueOps(this.scope, path, options.record);
  }

  /**
   * Enqueues a node and waits until `rule` says we hold the lock. Rejects with LOCK_TIMEOUT,
   * ABORTED, SESSION_CLOSED, NODE_DELETED or RETRIES_EXHAUSTED; in every failure our node is
   * deleted (or, if the session is gone, already gone with it). A waiter whose session is lost
   * enqueues again on the next one (see `enterSurvivingLoss` below).
   */
  enter(options: EnterOptions): Promise<QueueSeat> {
    const contender = new Contender(this.ops, options, this.survival);
    contender.start();
    return contender.done;
  }


  /**
   * A waiter lost its session before its grant (the attempt began at `startedAt`): enqueue again on the session's next one, while
   * the acquisition's deadline, its signal and the session's retry policy allow (docs/architecture.md,
   * "A waiter survives its session"). It lost nothing with its session but its place: its node
   * went with it, so a new node takes the place at the end of the queue. A holder's loss never
   * comes here: its seat was resolved, and its signal aborts (the lock is gone, and nobody may be
   * told otherwise). `losses` counts the sessions this acquisition lost, over all its attempts (each
   * step's lost connections are counted by that step, in `QueueOps`: "Retries"), so `retryNTimes`
   * or `retryUntilElapsed` ends it with `RETRIES_EXHAUSTED`.
   */
  private async enterAgain(options: EnterOptions, startedAt: number, losses: RetryBudget | undefined, reason: unknown): Promise<QueueSeat> {
    const budget = losses ?? new RetryBudget(this.session.retryPolicy, this.ops.what, { startedAt });
    const deadline = options.timeoutMs === undefined ? undefined : startedAt + options.timeoutMs;
    await pauseAfterLoss(this.session, this.scope.fanOut, this.ops.what, reason, budget, deadline, options.signal);
    const remaining = deadline === undefined ? undefined : Math.max(0, Math.ceil(deadline - performance.now()));
    // Begun now with what is left of the deadline (so a later loss finds the same deadline); the
    // budget keeps counting from the acquisition's start.
    const contender = new Contender(this.ops, remaining === undefined ? options : { ...options, timeoutMs: remaining }, this.survival, performance.now(), budget);
    contender.start();
    return contender.done;
  }

  /**
   * Deletes our node. If the connection is down it keeps trying until it is back or the session
   * is gone (then the server deletes the ephemeral node itself). Never deletes a node of a later
   * session, and never throws for a node that is already gone. Any other refusal (NO_AUTH: an ACL
   * without DELETE for us) rejects, and a holder's seat stays as it was: the node is still there
   * and still ours, and a later call may try again (docs/errors.md, "Releasing").
   */
  leave(seat: QueueNode): Promise<void> {
    return this.ops.leave(seat);
  }

  /**
   * Why a seat granted earlier can no longer be relied on, checked as a grant is checked
   * (docs/architecture.md, "Only events the session can still vouch for"): its holding lost, its
   * node's deletion read off the wire and not yet told, or a session the server may have expired
   * meanwhile (a stall of this process). A loss found here is declared before this returns: the
   * session lost (every holding of it aborts), or this holding lost to its node's deletion, so
   * every listener and signal of the seat agrees with the answer. `undefined` while the seat still
   * holds. What a re-entry asks before it hands out another handle on the same seat, and what a
   * handle's `held` and `signal` ask when read (`SeatHandle`). Makes no signal.
   */
  holdingLost(seat: QueueSeat): Error | undefined {
    if (!isSeatLost(seat)) {
      const own = this.scope.seats.get(seat.path)?.own;
      own?.watchHolding(); // looked at: its node's deletion is to be heard from now on
      if (own?.state === 'gone') loseSeat(seat, own.deletedBy!);
      else if (this.session.aliveAt(seat.generation) !== undefined) return undefined;
    }
    const reason = seatLossReason(seat);
    return reason instanceof Error ? reason : new SessionLostError(`${this.ops.what}: the ZooKeeper session was lost`, { cause: reason });
  }

  /**
   * Calls `lost` with the reason when `seat`'s holding is lost (its session, or its node deleted
   * by someone else), never if it was lost already; returns how to stop. Makes no signal and sends
   * nothing: what a recipe follows for its events (docs/architecture.md, "What a holder's watch costs").
   */
  onHoldingLost(seat: QueueSeat, lost: (reason: unknown) => void): () => void {
    return onSeatLost(seat, { holdingLost: lost });
  }

  /** Whether `seat`'s holding is lost already, as far as this process has heard (asks nothing, makes no signal). */
  isLost(seat: QueueSeat): boolean {
    return isSeatLost(seat);
  }

  /**
   * Someone follows `seat`'s holding (a `lost` listener, a diagnostics subscriber): the watch that
   * hears of its node's deletion is set now rather than after `HELD_WATCH_DELAY_MS`.
   */
  watchHolding(seat: QueueSeat): void {
    this.scope.seats.get(seat.path)?.own?.watchHolding();
  }

  /**
   * Holds a node of ours created outside the queue walk (a read/write downgrade's read node, which
   * takes its write node's place and so is granted at once): watched like any seat, with a
   * holder's signal of its own. Give it back with {@link leave}.
   */
  adopt(path: string, fencingToken: bigint, generation: number, grantedAt: number): QueueSeat {
    const session = this.session;
    const own = this.ops.seat(path, IGNORE_WHILE_WAITING, false);
    own.arm();
    const sessionSignal = session.generation === generation ? session.sessionSignal : AbortSignal.abort(new SessionLostError(`${this.ops.what}: the ZooKeeper session was lost`));
    const node = { path, name: path.slice(path.lastIndexOf('/') + 1), fencingToken, generation, signal: sessionSignal };
    return this.ops.holdSeat(node, sessionSignal, undefined, grantedAt);
  }

  /**
   * Marks our node at `path` (a seat of this queue) as one whose place stays taken after it goes:
   * a waiter of this process behind it then lists again when it goes, rather than taking its
   * going for the lock's release (a read/write downgrade's write node, whose read node stays).
   * Call before the node that keeps the place is created.
   */
  keepPlace(path: string): void {
    this.scope.keepPlace(path);
  }

  /**
   * Refuses now a node of `kind` with `data` that the session would refuse to send (over its
   * `maxRequestBytes`): for a recipe that creates other directories before entering this queue (a
   * `curator`-layout semaphore's internal lock), so that a refused acquisition creates none.
   * @throws InvalidArgumentError (`INVALID_ARGUMENT`)
   */
  assertFits(kind: string, data: Uint8Array | null | undefined): void {
    assertLockNodeFits(this.session, joinPath(this.path, newProtectedName(kind).name), this.scope.nodeData(data));
  }

  /**
   * The data a node of this queue carries: `data`, or when the recipe was given none the owner
   * data naming this process (docs/observability.md, "Owner data"), for nodes a recipe creates
   * itself (a read/write downgrade's read node).
   */
  nodeData(data: Uint8Array | null | undefined): Uint8Array {
    return this.scope.nodeData(data);
  }

  /**
   * A stop for a step a recipe takes on this queue itself (a read/write lock's downgrade): the
   * caller's signal, the deadline and the session's end, as an acquisition's. It follows them
   * through the session's one fan-out, so the session's signal keeps a single listener however
   * many such steps run. Dispose of it when the step ends.
   */
  stopFor(options: { signal?: AbortSignal | undefined; timeoutMs?: number | undefined; what: string }): StopSignal {
    return this.ops.stopFor(options, options.what);
  }

  /** The queue's current children, sorted by sequence (full entries, names only). */
  async participants(): Promise<QueueEntry[]> {
    try {
      const { children } = await this.session.getChildren(this.path);
      return sortedChildren(children);
    } catch (err) {
      if (isZkError(err, 'NO_NODE')) return [];
      throw err;
    }
  }

  /** Resolves when every background clean-up started so far has finished. */
  settled(): Promise<void> {
    return this.ops.settled();
  }
}

/**
 * Marks `path`, a queue node of `session` (a seat), as one whose place stays taken after it goes
 * (see {@link LockQueue.keepPlace}, the same through the queue, which is the one to prefer).
 */
export function keepPlaceAfterLeaving(session: ZkSession, path: string): void {
  session.scope.get(engineScopeOf).keepPlace(path);
}

/** An adopted seat is held from the start: nothing is told before. */
const IGNORE_WHILE_WAITING: OwnNodeSink = { ownNodeGone: () => undefined, revocationRequested: () => undefined };

/**
 * Refuses anything but a ZkSession, checked by shape (a second copy of this package in
 * node_modules has its own class).
 * @throws InvalidArgumentError (`INVALID_ARGUMENT`)
 */
export function assertSession(value: unknown): asserts value is ZkSession {
  if (!isSession(value)) throw new InvalidArgumentError(`session must be a ZkSession (from ZkSession.connect()), got ${value === null ? 'null' : typeof value}`);
}

function isSession(value: unknown): value is ZkSession {
  const v = value as Partial<Record<'getChildren' | 'create' | 'delete', unknown>> | null;
  return typeof v === 'object' && v !== null && typeof v.getChildren === 'function' && typeof v.create === 'function' && typeof v.delete === 'function';
}

/**
 * Counts the lost session `err` against the policy (which may end the acquisition) and resolves
 * once the policy's pause is over and the session's next ZooKeeper session is connected. The
 * deadline and the signal end the wait with their own errors; closing the session ends it with
 * `SESSION_CLOSED`.
 */
async function pauseAfterLoss(session: ZkSession, fanOut: AbortFanOut, what: string, err: unknown, budget: RetryBudget, deadline: number | undefined, signal: AbortSignal | undefined): Promise<void> {
  const delay = budget.delayAfter(err);
  const stop = new AbortController();
  const timeout = (): LockTimeoutError => new LockTimeoutError(`${what}: not acquired in time (its ZooKeeper session was lost while it waited)`, { cause: err });
  const aborted = (): AbortedError => new AbortedError(`${what}: aborted`, { cause: signal?.reason });
  if (signal?.aborted === true) throw aborted();
  const remaining = deadline === undefined ? Infinity : deadline - performance.now();
  if (remaining <= 0) throw timeout();
  // Through the session's fan-out: the waiters of one lost session often share a caller's signal.
  const unfollow = signal === undefined ? undefined : fanOut.onAbort(signal, () => stop.abort(aborted()));
  const timer = remaining === Infinity ? undefined : setTimeout(() => stop.abort(timeout()), remaining);
  try {
    // The policy's pause; the deadline or the caller's signal ends it with their own error.
    await abortableSleep(delay, stop.signal).catch(() => {
      throw stop.signal.reason;
    });
    await session.waitForConnected(stop.signal);
  } finally {
    clearTimeout(timer);
    unfollow?.();
  }
}
