import { isZkError, NodeDeletedError } from '../errors.js';
import { isRevocationRequest } from '../nodes/nodeData.js';
import type { ZkSession } from '../session/ZkSession.js';
import type { Stat, WatchEvent, Watcher } from '../session/types.js';
import type { Suspensions } from '../watch/NodeWatch.js';

/*
 * Our node in a queue (docs/architecture.md, "A grant requires our node"): what a seat is, what
 * this process knows of it, and the watch on it while we wait and hold (which also hears a
 * revocation request written to it; `revocation.ts` writes one).
 */

/** Our node in a lock queue, held or still waiting. */
export interface QueueNode {
  /** Full path of our node, e.g. `/locks/orders/_c_<uuid>-lock-0000000007`. */
  readonly path: string;
  /** The node's name (last path segment). */
  readonly name: string;
  /**
   * Fencing token: the node's `czxid`. It strictly increases across successive holders of one
   * path, even if the lock directory is deleted and recreated, so a resource guarded by the lock
   * can reject writes carrying an older token.
   */
  readonly fencingToken: bigint;
  /** The ZkSession generation (ZooKeeper session) that owns the node. */
  readonly generation: number;
  /** Aborted when that ZooKeeper session is lost: the node (and the lock) is gone then. */
  readonly signal: AbortSignal;
  /**
   * Set when an earlier create of this acquisition lost its reply and was not found afterwards:
   * the server may still apply it (a request the old server had not passed on yet), leaving a
   * node with this GUID that nobody knows. Leaving the queue sweeps the directory for the nodes
   * that create made (this GUID and this node's kind), sparing any node a seat stands for.
   */
  readonly ghostGuid?: string | undefined;
}

/**
 * Our node in a lock queue once the ordering rule says we hold the lock: what a recipe needs to
 * build its handle. Obtained from `LockQueue.enter`; given back with `LockQueue.leave`.
 */
export interface QueueSeat extends QueueNode {
  /**
   * The grant's moment on this process's `performance.now()` clock: the clock reading with which
   * the engine last checked that the session could not have expired yet. Every hold of this seat
   * began after it; a process stopped after it (GC, SIGSTOP) held the lock while stopped.
   */
  readonly grantedAt: number;
}

/** What this process knows about one of its own queue nodes. */
export interface LocalSeatState {
  /** Became true when the node was granted the lock; stays true after it is released. */
  held: boolean;
  /** The watch on this node (see {@link OwnNodeWatch}), ended when we leave. */
  own?: OwnNodeWatch;
  /** Ends what the holding follows (the session's signal); set when the node is granted. */
  endHolding?: () => void;
  /**
   * Another node of ours stands at this node's place and stays when it goes (a read/write lock's
   * downgrade read node): its going as a holder then hands nothing over.
   */
  keepsPlace?: boolean;
}

/** Whether `state` is a node of ours that was granted and leaves nothing of ours in its place. */
export function leavesAsHolder(state: LocalSeatState): boolean {
  return state.held && state.keepsPlace !== true;
}


/**
 * How long a holding nobody looks at goes without a watch on its node (see `OwnNodeWatch.held`):
 * long enough for the short holdings of a busy lock to cost no request, short enough that a long
 * one hears of its node's deletion within a few milliseconds of a round trip.
 */
export const HELD_WATCH_DELAY_MS = 10;

/** What an {@link OwnNodeWatch} uses of the engine's per-session state (`EngineScope`). */
export interface SeatScope {
  readonly suspensions: Suspensions;
  nextListing(dir: string): Promise<string[]>;
  sortedQueueOf(children: readonly string[]): { indexOf: ReadonlyMap<string, number> };
}

/** Where an {@link OwnNodeWatch} reports. */
export interface OwnNodeSink {
  /** Our node is gone, and we did not delete it (an operator, an admin script, a `deleteall`). */
  ownNodeGone(error: NodeDeletedError): void;
  /** Someone wrote Curator's revocation marker to our node: they ask us to release. */
  revocationRequested(): void;
}

/**
 * What we know of our own queue node: `present` (a watch on it is set and nothing we have read since
 * says it went), `gone`, or `unknown` (no watch yet, or the connection dropped since: after a
 * reconnection the server replays deletions in no particular order, so an event read then says
 * nothing about which node went first).
 */
export type OwnNodeState = 'unknown' | 'present' | 'gone';

/**
 * Watches our own queue node from the moment it is seated until we leave (docs/architecture.md,
 * "A grant requires our node"). While we wait, no shortcut may grant the lock unless the node is
 * `present`: the server tells one session's events and replies in the order it applied them, and
 * this watch was set before the one on the node we wait for, so a deletion of our node that came
 * first has been read (and this state says `gone`) before the event that would grant. While we
 * hold, the node's deletion by anyone else is how the holder learns it lost the lock.
 *
 * The watch is a *child* watch (getChildren on the node itself): ZooKeeper fires it when the node is
 * deleted but not when its data changes, so a foreign write to our node (a `zkCli set`) costs us no
 * notification. A data watch is added only when the caller listens for revocation requests.
 */
export class OwnNodeWatch {
  private current: OwnNodeState = 'unknown';
  /** Our node's deletion was read off the wire (before it is told: see the watcher's `onArrival`). */
  private deletionRead = false;
  /** Why the node is gone, built the first time someone asks (see {@link deletedBy}). */
  private deletion: NodeDeletedError | undefined;
  /** The sink was told of the deletion. */
  private told = false;
  private arming = false;
  private ended = false;
  /** Our own delete of the node is on its way (see {@link leavingNow}): its deletion is ours. */
  private leaving = false;
  /** A holder's watch is to be set soon (see {@link held}): the pending immediate or timer. */
  private armScheduled: ReturnType<typeof setTimeout> | ReturnType<typeof setImmediate> | undefined;
  private readonly watcher: Watcher;
  private dataWatcher: Watcher | undefined;
  private unsubscribe: (() => void) | undefined;
  /** The ZooKeeper session that owns the node, and its signal. */
  private readonly generation: number;
  private readonly sessionSignal: AbortSignal;
  /** We hold: revocation requests are told at once (before, they wait for the grant). */
  private holding = false;
  /** A revocation request seen while we waited: told at the grant. */
  private revocationPending = false;
  /** The session's `suspended` events seen while we waited: a proof asked before the last proves nothing. */
  private suspensionsSeen = 0;
  /** Known `present` when the connection dropped, and not proven again since. */
  private unproven = false;

  constructor(
    private readonly session: ZkSession,
    private readonly scope: SeatScope,
    readonly path: string,
    private sink: OwnNodeSink,
    /** Also watch the node's data for Curator's revocation marker. */
    private readonly revocable: boolean,
  ) {
    this.generation = session.generation;
    this.sessionSignal = session.sessionSignal;
    this.watcher = Object.assign(
      (event: WatchEvent) => {
        if (event.type === 'deleted') this.gone();
      },
      {
        // Read off the wire: from now on no grant may rely on our node, even one decided on an
        // event read just before it and acted on first. The holder is told in a later turn. Noted
        // as a flag, at the same moment as before: the error is built only if a caller is told
        // (our own delete fires this watch on every release when its registration came in the
        // same reply batch as the delete; nobody is told then, so nothing is built).
        onArrival: (event: WatchEvent) => {
          if (event.type === 'deleted' && !this.ended && !this.leaving) this.deletionRead = true;
        },
      },
    );
  }

  get state(): OwnNodeState {
    return this.deletionRead ? 'gone' : this.current;
  }

  /** Why the state is `gone`: someone else deleted our node (undefined while it is not). */
  get deletedBy(): NodeDeletedError | undefined {
    if (!this.deletionRead) return undefined;
    return (this.deletion ??= this.deletedError());
  }

  /**
   * Sets the deletion watch (and the revocation watch) unless it is set or on its way; while we
   * wait, a lost connection makes the state `unknown` again (see {@link OwnNodeState}).
   */
  arm(): void {
    if (this.ended || this.current !== 'unknown' || this.arming) return;
    this.unsubscribe ??= this.scope.suspensions.onSuspended(() => this.suspended());
    this.arming = true;
    // `...IfExists`: a node already gone is an answer (null), which builds no error until told.
    this.session.getChildrenIfExists(this.path, this.watcher).then(
      (listing) => {
        this.arming = false;
        // Gone before the watch was set.
        if (listing === null) this.gone();
        else if (this.ended || this.leaving) this.session.unwatch(this.path, this.watcher);
        else if (this.current === 'unknown') this.current = 'present';
      },
      (err: unknown) => {
        this.arming = false;
        // A lost connection leaves it `unknown` (no shortcut grants meanwhile) and the wire client
        // never registered the watch, so nothing would set it again: we do, once connected, holder
        // or not (a fresh listing would too, but a holder never lists).
        if (isZkError(err, 'CONNECTION_LOSS')) this.whenConnected(() => this.arm());
      },
    );
    if (this.revocable && this.dataWatcher === undefined) this.watchData();
  }

  /** The connection dropped while we wait: see {@link OwnNodeState}, and {@link proveOnceConnected}. */
  private suspended(): void {
    this.suspensionsSeen++;
    if (this.current === 'present') {
      this.current = 'unknown';
      this.unproven = true;
    }
    if (this.unproven) this.proveOnceConnected();
  }

  /**
   * Makes our node `present` again once reconnected, or each waiter would list at its turn
   * (docs/architecture.md, "Bounded recovery"). The listing, shared by the session's waiters in the
   * directory, goes out after the wire client's SetWatches: a node it shows is watched again, and
   * its deletion is told in order from that reply on (the replayed ones came before it).
   */
  private proveOnceConnected(): void {
    const seen = this.suspensionsSeen;
    this.whenConnected(() => {
      this.scope.nextListing(this.path.slice(0, this.path.lastIndexOf('/')) || '/').then(
        (children) => {
          if (this.ended || this.holding || this.suspensionsSeen !== seen || this.current !== 'unknown') return;
          this.unproven = false;
          if (this.scope.sortedQueueOf(children).indexOf.has(this.path.slice(this.path.lastIndexOf('/') + 1))) this.current = 'present';
        },
        () => undefined, // lost with the connection again: asked again at the next reconnection
      );
    });
  }

  /**
   * We hold now: suspensions no longer matter (the node's deletion is still told). A holder granted
   * on a fresh listing has no watch yet (docs/architecture.md, "What a holder's watch costs"): it is
   * set as soon as someone looks at the holding ({@link watchHolding}: its signal read, a handle's
   * `held`, a re-entry), a turn after the grant when revocation requests are listened for, and
   * otherwise {@link HELD_WATCH_DELAY_MS} after the grant, unless we left by then: a short holding
   * nobody looks at (an uncontended lock released at once, a per-entity lock held a millisecond)
   * sends none, and its release gets no notification. Safe: the listing proved the node when it
   * was served, and nothing of the lock depends on this watch but the holder's own news of a
   * deletion by someone else, told when the watch's reply comes (NO_NODE) or its event; a release
   * before then finds the node gone (its delete answers NO_NODE) as before.
   */
  held(sink: OwnNodeSink): void {
    this.sink = sink;
    this.holding = true;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    if (this.current === 'unknown' && !this.arming && this.armScheduled === undefined) {
      if (this.revocable) {
        this.armScheduled = setImmediate(() => {
          this.armScheduled = undefined;
          if (!this.ended && !this.leaving) this.arm();
        });
      } else {
        const timer = setTimeout(() => {
          this.armScheduled = undefined;
          if (!this.ended && !this.leaving) this.arm();
        }, HELD_WATCH_DELAY_MS);
        timer.unref();
        this.armScheduled = timer;
      }
    }
    if (this.revocationPending) {
      this.revocationPending = false;
      this.tellRevocation();
    }
  }

  /**
   * Someone looks at the holding (its signal, a handle's `held`, a re-entry): its watch is set now
   * if it is not set or on its way (see {@link held}).
   */
  watchHolding(): void {
    if (!this.holding || this.ended || this.leaving || this.current !== 'unknown' || this.arming) return;
    this.cancelScheduledArm();
    this.arm();
  }

  private cancelScheduledArm(): void {
    const scheduled = this.armScheduled;
    if (scheduled === undefined) return;
    this.armScheduled = undefined;
    if (this.revocable) clearImmediate(scheduled as ReturnType<typeof setImmediate>);
    else clearTimeout(scheduled as ReturnType<typeof setTimeout>);
  }

  /**
   * Our delete of the node is on its way: its deletion is not someone else's, so the watch is given
   * up here (the server's fires unseen, as after {@link end}). Nothing else ends: if the server
   * refuses the delete (NO_AUTH...), {@link leaveRefused}.
   */
  leavingNow(): void {
    this.cancelScheduledArm();
    // A watch whose reply is still on its way is registered after this unwatch: `leaving` keeps
    // its firing (our own delete's) from being read or told as someone else's.
    this.leaving = true;
    this.session.unwatch(this.path, this.watcher);
  }

  /**
   * The server refused our delete: the node is still ours. Watch it again; a deletion by someone
   * else since the refusal is then a NO_NODE answer (the server answers in order), told as such.
   */
  leaveRefused(): void {
    if (this.ended) return;
    this.leaving = false;
    this.session.getChildrenIfExists(this.path, this.watcher).then(
      (listing) => {
        if (listing === null) this.gone();
      },
      (err: unknown) => {
        if (isZkError(err, 'CONNECTION_LOSS')) this.whenConnected(() => this.leaveRefused());
      },
    );
  }

  /** We leave (or gave up): nothing more is told. The node's own deletion fires the watch locally. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.cancelScheduledArm();
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.session.unwatch(this.path, this.watcher);
    if (this.dataWatcher !== undefined) this.session.removeWatches(this.path, this.dataWatcher);
  }

  /** Runs `then` once this session (the same ZooKeeper session) is connected again, unless we ended. */
  private whenConnected(then: () => void): void {
    const session = this.session;
    session.waitForConnected(this.sessionSignal).then(
      () => {
        if (!this.ended && session.generation === this.generation) then();
      },
      () => undefined, // the session was lost or closed: our node went with it
    );
  }

  private gone(): void {
    if (this.ended || this.told || this.leaving) return;
    this.told = true;
    this.current = 'gone';
    this.deletionRead = true;
    this.sink.ownNodeGone(this.deletedBy!);
  }

  private deletedError(): NodeDeletedError {
    const name = this.path.slice(this.path.lastIndexOf('/') + 1);
    return new NodeDeletedError(`our lock node ${name} was deleted by someone else: the lock is not ours`, { op: 'watch', path: this.path });
  }

  /**
   * Tells the holder it is asked to release, in a later turn: a request seen while we waited is
   * told at the grant, before the code awaiting `acquire()` has its handle (it could not release
   * yet), and a callback that throws must not break the grant (it would never settle) nor escape
   * as an unhandled rejection: it is the session's `error` event. Not told once we left.
   */
  private tellRevocation(): void {
    setImmediate(() => {
      if (this.ended || this.state === 'gone') return;
      try {
        this.sink.revocationRequested();
      } catch (err) {
        const error = err instanceof Error ? err : new Error(String(err));
        if (this.session.listenerCount('error') > 0) this.session.emit('error', error);
        else process.emitWarning(`onRevoke threw and the ZkSession has no 'error' listener: ${String(err)}`);
      }
    });
  }

  /** Reads our node's data with a watch; a revocation marker asks us to release. */
  private watchData(): void {
    const watcher: Watcher = (event) => {
      if (!this.ended && event.type === 'dataChanged' && this.dataWatcher === watcher) this.watchData();
    };
    this.dataWatcher = watcher;
    this.session.getData(this.path, watcher).then(
      ({ data }) => {
        if (this.ended || this.dataWatcher !== watcher || !isRevocationRequest(data)) return;
        if (this.state === 'gone') return;
        if (this.holding) this.tellRevocation();
        else this.revocationPending = true;
      },
      (err: unknown) => {
        // Gone: the child watch tells. A lost connection: the watch was never registered.
        if (isZkError(err, 'CONNECTION_LOSS') && this.dataWatcher === watcher) this.whenConnected(() => this.watchData());
      },
    );
  }
}
