import type { LockQueue, QueueSeat } from '@zk-recipes/core/recipe-kit';

/**
 * One term of leadership, as `LeaderLatch.leadership()`, the `isLeader` event and a
 * `LeaderSelector`'s function get it. Its `signal` aborts the moment the leadership may be lost
 * (the session lost or declared lost, our node deleted), before anyone else can be elected, and
 * when it is given up (`close()`, a selector's term over or interrupted).
 */
export interface Leadership {
  /** The election's directory. */
  readonly path: string;
  /** Our node, the first of the election, e.g. `/services/scheduler/_c_<uuid>-latch-0000000007`. */
  readonly node: string;
  /** This participant's id (its node's data). */
  readonly id: string;
  /**
   * The node's `czxid`: it grows with every new leader of the election (even across the
   * directory's deletion and re-creation). Pass it with every write to the resource the leader
   * guards, and have the resource refuse a token lower than the highest it has seen (docs/leader.md).
   */
  readonly fencingToken: bigint;
  /**
   * The moment the engine granted it, on this process's `performance.now()` clock (its last check
   * that the session could not have expired yet).
   */
  readonly grantedAt: number;
  /**
   * Aborts when the leadership ends or may have ended. `reason` is a typed error: `SESSION_LOST`,
   * `NODE_DELETED`, `SESSION_CLOSED` (taken away); `ELECTION_CLOSED`, `ABORTED` (given up: the
   * latch closed, the selector's function returned or was interrupted). Reading it first checks
   * what `held` checks, so a process woken from a stop past its session sees it aborted on its
   * first read, before any timer has run.
   */
  readonly signal: AbortSignal;
  /**
   * Still leader, checked now (the same meaning as a lock handle's `held`): the signal has not
   * aborted, our node is not known deleted, and the session cannot have expired yet by this
   * process's clock (a stall of this process past the session timeout ends the leadership here,
   * before this returns).
   */
  readonly held: boolean;
}

/** A {@link Leadership} over the engine's seat: its own signal, following the seat's. */
export class Term implements Leadership {
  private readonly controller = new AbortController();
  /** Resolves with the reason, once the term ended (its signal aborted). */
  readonly ended: Promise<Error>;
  private endWith!: (reason: Error) => void;
  private readonly follow = (): void => {
    this.end(this.seat.signal.reason);
  };

  constructor(
    private readonly queue: LockQueue,
    /** The engine's seat (our node, granted). */
    readonly seat: QueueSeat,
    readonly path: string,
    readonly id: string,
    /** The ZooKeeper session our node belongs to (for the diagnostics channel). */
    readonly sessionId: string,
  ) {
    this.ended = new Promise((resolve) => (this.endWith = resolve));
    if (seat.signal.aborted) this.end(seat.signal.reason);
    else seat.signal.addEventListener('abort', this.follow, { once: true });
  }

  get node(): string {
    return this.seat.path;
  }

  get fencingToken(): bigint {
    return this.seat.fencingToken;
  }

  get grantedAt(): number {
    return this.seat.grantedAt;
  }

  get signal(): AbortSignal {
    // The same check as `held` first: code that looks at the signal after a stop of this process
    // sees the end before any timer of ours has run (docs/architecture.md, "What a handle says when read").
    this.checkNow();
    return this.controller.signal;
  }

  get held(): boolean {
    return this.checkNow();
  }

  /**
   * Whether the term lasts, checked now as a grant is checked: a process stopped past its session
   * timeout must not go on believing in a node the server has deleted (docs/architecture.md,
   * "Only events the session can still vouch for"). A loss found ends the term before this returns.
   */
  private checkNow(): boolean {
    if (this.controller.signal.aborted) return false;
    const lost = this.queue.holdingLost(this.seat);
    if (lost === undefined) return true;
    this.end(lost);
    return false;
  }

  /** Why it ended; `undefined` while it lasts. */
  get reason(): Error | undefined {
    return this.controller.signal.aborted ? (this.controller.signal.reason as Error) : undefined;
  }

  /** Ends the term with `reason` (its signal aborts); false if it had ended already. */
  end(reason: unknown): boolean {
    if (this.controller.signal.aborted) return false;
    this.seat.signal.removeEventListener('abort', this.follow);
    const error = reason instanceof Error ? reason : new Error(String(reason));
    this.controller.abort(error);
    this.endWith(error);
    return true;
  }
}
