import { ReleasedError } from '../errors.js';
import type { LockQueue } from '../engine/LockQueue.js';
import { isSeatLost, onSeatLost, seatLossReason, type HoldingListener } from '../engine/holding.js';
import type { QueueSeat } from '../engine/ownNode.js';

/*
 * What a holder's handle says when it is read (docs/architecture.md, "What a handle says when
 * read"): one meaning of `held` and `signal` for every handle on a granted seat (a lock's handle, a
 * semaphore's lease).
 */

/**
 * A handle on a granted seat. `held` means "still ours, checked now": not released, and the
 * seat's holding not lost, asked as a grant is asked (`LockQueue.holdingLost`: the clock against
 * the session's deadline, our node's deletion read but not told yet). Reading `signal` runs the
 * same check first, so code that looks at the signal after this process was stopped sees the loss
 * before any timer of ours has run. From {@link endByRelease} on, `held` is false and the signal
 * is aborted with a `ReleasedError`, whatever the delete of the node is still doing.
 *
 * The signal is the handle's own, made when first read (an `AbortController` is the costliest
 * object of a grant): several handles on one seat (re-entries, the leases of one node) end one by
 * one. Until it is made, nothing of this handle is on the seat.
 */
export abstract class SeatHandle implements HoldingListener {
  private controller: AbortController | undefined;
  /** Stops following the seat's loss (set while the signal is made and the handle not ended). */
  private unfollow: (() => void) | undefined;
  /** `release()` was called on this handle. */
  private releaseCalled = false;

  protected constructor(
    /** The queue that granted the seat (it checks a holding as it checks a grant). */
    private readonly queue: LockQueue,
    /** The seat this handle holds through. */
    private readonly heldSeat: QueueSeat,
  ) {}

  /** Still ours, checked now (see {@link SeatHandle}). */
  get held(): boolean {
    return !this.releaseCalled && this.queue.holdingLost(this.heldSeat) === undefined;
  }

  /** Aborts when the handle is released or its holding is lost; the check runs first (see {@link SeatHandle}). */
  get signal(): AbortSignal {
    // A loss found now is declared before this returns: the seat's listeners (ours, if the signal
    // was made) are told by then.
    if (!this.releaseCalled) this.queue.holdingLost(this.heldSeat);
    let controller = this.controller;
    if (controller === undefined) {
      controller = new AbortController();
      this.controller = controller;
      if (this.releaseCalled) controller.abort(this.releasedReason());
      else if (isSeatLost(this.heldSeat)) controller.abort(seatLossReason(this.heldSeat));
      else this.unfollow = onSeatLost(this.heldSeat, this);
    }
    return controller.signal;
  }

  /** Whether `release()` was called on this handle (its delete may still be on its way). */
  protected get released(): boolean {
    return this.releaseCalled;
  }

  /**
   * `release()` was called: from now on the handle holds nothing and its signal is aborted
   * (`RELEASED`, unless it aborted with a loss before). The reason is built only for a signal that
   * was made: an uncontended release builds no error.
   */
  protected endByRelease(): void {
    if (this.releaseCalled) return;
    this.releaseCalled = true;
    this.unfollow?.();
    this.unfollow = undefined;
    const controller = this.controller;
    if (controller !== undefined && !controller.signal.aborted) controller.abort(this.releasedReason());
  }

  /** @internal The seat's holding was lost (see `onSeatLost`). */
  holdingLost(reason: unknown): void {
    this.unfollow = undefined;
    this.controller!.abort(reason);
  }

  private releasedReason(): ReleasedError {
    const path = this.heldSeat.path;
    return new ReleasedError(`${path} was released by its holder: this handle holds nothing any more`, { path });
  }
}
