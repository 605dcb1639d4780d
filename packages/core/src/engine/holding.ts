import type { AbortFanOut, StopListener } from '../signals/StopSignal.js';
import type { NodeDeletedError } from '../errors.js';
import type { LocalSeatState, OwnNodeSink, OwnNodeWatch, QueueNode, QueueSeat } from './ownNode.js';

/*
 * Holding a queue node (docs/architecture.md, "The lock-queue engine", step 4): what a grant gives
 * the holder, a signal that aborts when the lock is no longer ours, made only when someone reads it.
 */

/**
 * Starts holding the node `state` describes and returns the holding, whose signal aborts when the
 * ZooKeeper session is lost (its signal's reason) or when someone else deletes our node (a
 * `NodeDeletedError`). The lock is not ours in either case. `LockQueue.leave` ends it.
 */
export function beginHolding(state: LocalSeatState, own: OwnNodeWatch, fanOut: AbortFanOut, sessionSignal: AbortSignal, onRevoke: (() => void) | undefined): Holding {
  state.held = true;
  const holding = new Holding(fanOut, sessionSignal, onRevoke, own);
  state.endHolding = holding.end;
  own.held(holding);
  fanOut.follow(sessionSignal, holding, true);
  return holding;
}

/** Told when a {@link Holding} is lost (see {@link onSeatLost}). */
export interface HoldingListener {
  holdingLost(reason: unknown): void;
}

/**
 * One holding of a queue node: lost when the ZooKeeper session is lost or someone else deletes
 * the node. Its `AbortSignal` (an EventTarget, the costliest object of a grant) is made only when
 * someone reads it: until then being lost is a flag, and what the recipes follow internally is
 * told directly ({@link onSeatLost}). Made or not, the signal aborts at the same moment, when the
 * loss is read: "a holder's signal aborts before anyone else can hold" holds for a signal made
 * later too, since it is made aborted (docs/architecture.md, "When we declare lost"). Listeners
 * follow the order of a signal's own: the internal ones (subscribed at the grant) first.
 */
export class Holding implements StopListener, OwnNodeSink {
  private controller: AbortController | undefined;
  private lost = false;
  private lostReason: unknown;
  private listeners: HoldingListener[] | undefined;
  /** Stops following the session's signal (`LocalSeatState.endHolding`). */
  readonly end: () => void = unfollowing(this);

  constructor(
    private readonly fanOut: AbortFanOut,
    private readonly sessionSignal: AbortSignal,
    private readonly onRevoke: (() => void) | undefined,
    /** The watch on our node: set once someone follows this holding's signal (see `OwnNodeWatch.held`). */
    private readonly own: OwnNodeWatch,
  ) {}

  /** The holder's signal, made on first use (which also sets the watch on our node). */
  get signal(): AbortSignal {
    let controller = this.controller;
    if (controller === undefined) {
      this.own.watchHolding();
      controller = new AbortController();
      this.controller = controller;
      // Subscribed before anyone else can subscribe: the internal listeners are told first.
      if (this.lost) controller.abort(this.lostReason);
      else controller.signal.addEventListener('abort', this);
    }
    return controller.signal;
  }

  get aborted(): boolean {
    return this.lost;
  }

  get reason(): unknown {
    return this.lostReason;
  }

  /** Tells `listener` when lost (never, if lost already: as an AbortSignal's listener). */
  listen(listener: HoldingListener): void {
    if (!this.lost) (this.listeners ??= []).push(listener);
  }

  unlisten(listener: HoldingListener): void {
    const listeners = this.listeners;
    const at = listeners?.indexOf(listener) ?? -1;
    if (at >= 0) listeners!.splice(at, 1);
  }

  /** @internal The signal's own 'abort' event (the signal was made): the internal listeners. */
  handleEvent(): void {
    this.tell();
  }

  /** @internal Stops following the session's signal. */
  unfollow(): void {
    this.fanOut.unfollow(this.sessionSignal, this);
  }

  /** @internal The session's signal aborted (through the session's fan-out). */
  stopped(): void {
    this.abort(this.sessionSignal.reason);
  }

  /** @internal Someone else deleted our node. */
  ownNodeGone(error: NodeDeletedError): void {
    this.end();
    this.abort(error);
  }

  /** @internal */
  revocationRequested(): void {
    this.onRevoke?.();
  }

  private abort(reason: unknown): void {
    if (this.lost) return;
    this.lost = true;
    this.lostReason = reason;
    const controller = this.controller;
    if (controller !== undefined) controller.abort(reason); // its dispatch tells ours first (handleEvent)
    else this.tell();
  }

  private tell(): void {
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners !== undefined) for (const listener of listeners) listener.holdingLost(this.lostReason);
  }
}

/** {@link Holding.end}, made apart so that it captures the holding alone. */
function unfollowing(holding: Holding): () => void {
  return () => holding.unfollow();
}

/** A granted seat whose signal is its holding's, made on first use (see {@link Holding}). */
class HeldSeat implements QueueSeat {
  readonly path: string;
  readonly name: string;
  readonly fencingToken: bigint;
  readonly generation: number;
  readonly ghostGuid: string | undefined;

  constructor(
    node: QueueNode,
    readonly holding: Holding,
    readonly grantedAt: number,
  ) {
    this.path = node.path;
    this.name = node.name;
    this.fencingToken = node.fencingToken;
    this.generation = node.generation;
    this.ghostGuid = node.ghostGuid;
  }

  get signal(): AbortSignal {
    return this.holding.signal;
  }
}

/** The seat of `node`, granted at `grantedAt`, held through `holding`. */
export function heldSeat(node: QueueNode, holding: Holding, grantedAt: number): QueueSeat {
  return new HeldSeat(node, holding, grantedAt);
}

/** Whether `seat`'s holding (or, not granted, its session) is lost, without making a signal. */
export function isSeatLost(seat: QueueNode): boolean {
  return seat instanceof HeldSeat ? seat.holding.aborted : seat.signal.aborted;
}

/** Why `seat` is lost (its signal's reason), without making a signal; `undefined` while it is not. */
export function seatLossReason(seat: QueueNode): unknown {
  return seat instanceof HeldSeat ? seat.holding.reason : seat.signal.reason;
}

/**
 * `seat` is lost to its node's deletion, read off the wire and not told yet (see
 * `OwnNodeWatch.deletedBy`): its holding ends now, as it would when told.
 */
export function loseSeat(seat: QueueNode, deletion: NodeDeletedError): void {
  if (seat instanceof HeldSeat) seat.holding.ownNodeGone(deletion);
}

/**
 * Tells `listener` when `seat` is lost (its signal aborts; never if it has already), and returns
 * how to stop: without making the signal of a seat granted by the engine.
 */
export function onSeatLost(seat: QueueSeat, listener: HoldingListener): () => void {
  if (seat instanceof HeldSeat) {
    const holding = seat.holding;
    holding.listen(listener);
    return () => holding.unlisten(listener);
  }
  const signal = seat.signal;
  const onAbort = (): void => listener.holdingLost(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  return () => signal.removeEventListener('abort', onAbort);
}
