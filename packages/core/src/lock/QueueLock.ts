import { EventEmitter } from 'eventemitter3';
import { AbortedError, isZkError, NotOwnerError, ReleaseFailedError, SessionClosedError, SessionLostError } from '../errors.js';
import { currentFrame, OwnerFrame, OwnerHoldings } from '../context/ownerContext.js';
import { joinPath, validateLockPath } from '../nodes/index.js';
import type { LockQueue } from '../engine/LockQueue.js';
import { isSeatLost, onSeatLost, type HoldingListener } from '../engine/holding.js';
import type { QueueSeat } from '../engine/ownNode.js';
import type { OrderingRule } from '../engine/OrderingRule.js';
import { acquireVia, tryAcquireVia, withLockVia, type AcquireSource, type Started } from './acquireFrontEnd.js';
import { lostChannel, publishLost, publishRelease, releaseChannel, type DiagnosticsRecipe } from '../diagnostics/channels.js';
import type { ZkSession } from '../session/ZkSession.js';
import type { AcquireOptions } from './acquireFrontEnd.js';
import type { LockHandle } from './LockHandle.js';
import { disposeHandle } from './releaseAfter.js';
import { SeatHandle } from './SeatHandle.js';
import { heldLocksRelayOf, type ConnectionNewsListener } from './heldLocksRelay.js';
import type { LockSetMember } from './lockSetMember.js';

/** Events a lock emits while it is held in this process. */
export interface LockEvents {
  /** The connection dropped: until `reconnected`, we cannot be sure we still hold the lock. */
  suspended: () => void;
  /** The same ZooKeeper session is back: the lock is still ours. */
  reconnected: () => void;
  /**
   * The lock is gone: the session was lost (every handle's `signal` is aborted), or someone else
   * deleted a holder's node (`NODE_DELETED`; that holder's handles' `signal` is aborted).
   */
  lost: (reason: Error) => void;
}

/** How a recipe configures the generic lock. */
export interface QueueLockConfig {
  /** The lock-queue engine of the lock's directory (may be shared, e.g. by read and write locks). */
  queue: LockQueue;
  /** Node kind, e.g. `lock-`. */
  kind: string;
  /** Who holds, and whom a waiter waits for. */
  rule: OrderingRule;
  /** Re-entrant by async context (InterProcessMutex) or not (InterProcessSemaphoreMutex). */
  reentrant: boolean;
  /** Data stored in our node. */
  data?: Uint8Array | null | undefined;
  /** Used in error messages, e.g. `InterProcessMutex.acquire`. */
  name: string;
  /** The recipe, as the diagnostics channels name it (docs/observability.md, "Diagnostics channels"). */
  recipe: DiagnosticsRecipe;
  /** Node kinds that count as ours in `getParticipantNodes()`; defaults to `[kind]`. */
  participantKinds?: readonly string[];
  /**
   * The lock is one key's of a lock set: it tells the set when it holds, holds nothing, is idle or
   * loses a node, and emits no connection news of its own (the set does, once for all its keys).
   */
  member?: LockSetMember | undefined;
}

/**
 * What `acquireIn` started: an answer already (a re-entry, or a refusal), or a seat being
 * acquired in the engine for a new owner frame (held once it resolves).
 */
export type Acquisition =
  | {
      /** A re-entry: no new frame. */
      frame: undefined;
      /** The handle of the re-entry. */
      acquired: Promise<LockHandle>;
    }
  | {
      /** The owner frame of the new holding. */
      frame: OwnerFrame;
      /** The engine's seat, once granted. */
      seat: Promise<QueueSeat>;
    };

/** One acquisition held by one owner context. */
interface Holding {
  frame: OwnerFrame;
  seat: QueueSeat;
  /** Handles not yet released (and the last one, while its release is refused), innermost last. */
  handles: Handle[];
  /** Stops telling the lock's listeners about this holding's node. */
  unlisten: () => void;
  /** Its node's delete is on its way: not re-entered meanwhile. */
  releasing?: boolean;
  /** The server refused its node's delete: the node is still ours, and the last handle may release again. */
  refused?: boolean;
}

class Handle extends SeatHandle implements LockHandle {
  constructor(
    private readonly lock: QueueLock,
    private readonly holding: Holding,
    queue: LockQueue,
  ) {
    super(queue, holding.seat);
  }
  get path(): string {
    return this.holding.seat.path;
  }
  get fencingToken(): bigint {
    return this.holding.seat.fencingToken;
  }
  get grantedAt(): number {
    return this.holding.seat.grantedAt;
  }
  /** @internal Whether `release()` may still be called: never called, or its delete was refused. */
  get unreleased(): boolean {
    return !this.released || (this.holding.refused === true && this.holding.handles.includes(this));
  }
  /** @internal `release()` was called: see {@link SeatHandle}. */
  endNow(): void {
    this.endByRelease();
  }
  release(): Promise<void> {
    return this.lock.releaseHandle(this.holding, this);
  }
  [Symbol.asyncDispose](): Promise<void> {
    return disposeHandle(this, `${this.lock.path}: await using`, () => this.unreleased);
  }
}

/**
 * The queue-backed lock (mutex, read/write lock): the acquire front-end (`acquireFrontEnd.ts`)
 * over the lock-queue engine, with ownership and re-entrancy by async context
 * (docs/architecture.md, "Ownership by async context"). A recipe supplies only its node kind and
 * ordering rule.
 */
export class QueueLock extends EventEmitter<LockEvents> {
  /** The lock directory. */
  readonly path: string;
  /** What the recipe configured: its lock directory, node kind, rule and queue. */
  protected readonly config: QueueLockConfig;
  private readonly holdings = new OwnerHoldings<Holding>();
  private readonly step = (options: AcquireOptions): Started<LockHandle> => this.start(options);
  /** What the acquire channel says about this lock's acquisitions. */
  private readonly source: AcquireSource;
  /** Hears the session's connection news while this lock holds anything (through the session's relay, or its lock set). */
  private readonly news: ConnectionNewsListener = {
    suspended: () => this.emit('suspended'),
    reconnected: () => this.emit('reconnected'),
    lost: (reason: Error) => this.emit('lost', reason),
  };
  /** The session's relay, or the lock set this lock is a member of. */
  private readonly relay: Pick<LockSetMember, 'join' | 'leave'>;
  /** Acquisitions that entered the engine and are not granted or failed yet. */
  private acquiring = 0;
  /** An acquisition in the engine failed: one function per lock, none per acquisition. */
  private readonly acquisitionFailed = (err: unknown): never => {
    this.acquiring--;
    this.tellIfIdle();
    throw err;
  };

  constructor(config: QueueLockConfig) {
    super();
    this.config = config;
    this.path = validateLockPath(config.queue.path, 'lock path');
    this.relay = config.member ?? config.queue.session.scope.get(heldLocksRelayOf);
    const lock = this;
    this.source = {
      recipe: config.recipe,
      path: this.path,
      sessionId: () => config.queue.session.sessionId,
      reenters: () => config.reentrant && lock.isOwnedByCurrentContext(),
    };
  }

  /** @internal The ZkSession this lock's nodes are made in (a multi-lock names it in diagnostics). */
  get session(): ZkSession {
    return this.config.queue.session;
  }

  /**
   * Waits until the lock is ours and returns a handle. Re-entrant locks: if the calling async
   * context already holds the lock, returns at once (no ZooKeeper traffic) and counts the depth.
   * @throws LockTimeoutError (`LOCK_TIMEOUT`), AbortedError (`ABORTED`), SessionLostError (`SESSION_LOST`)
   */
  acquire(options?: AcquireOptions): Promise<LockHandle> {
    return acquireVia(this.step, options, `${this.config.name}.acquire`, this.source);
  }

  /**
   * Like `acquire`, but resolves to `null` instead of throwing `LOCK_TIMEOUT`. `timeoutMs`
   * defaults to 0: take the lock only if it is free now.
   */
  tryAcquire(options?: AcquireOptions): Promise<LockHandle | null> {
    return tryAcquireVia(this.step, options, `${this.config.name}.tryAcquire`, this.source);
  }

  /**
   * Releases the innermost acquisition held by the calling async context.
   * @throws NotOwnerError (`NOT_OWNER`) if this context does not hold the lock.
   */
  release(): Promise<void> {
    const holding = this.holdingOfCurrentContext();
    const handle = holding?.handles.at(-1);
    if (holding === undefined || handle === undefined) {
      return Promise.reject(new NotOwnerError(`${this.config.name}.release: ${this.path} is not held by this async context; release through the handle acquire() returned: handle.release() (code after a helper that acquired and returned is not the holder, see docs/mutex.md)`));
    }
    return this.releaseHandle(holding, handle);
  }

  /**
   * Acquires, runs `fn` with the handle, and always releases; returns what `fn` returns, or rejects
   * with what it threw. A release the server refuses leaves the node ours: then it rejects with
   * ReleaseFailedError (`RELEASE_FAILED`), whose `handle` releases it again and whose `suppressed`
   * is what `fn` threw, if it did (docs/errors.md, "Releasing").
   */
  withLock<T>(fn: (handle: LockHandle) => T | Promise<T>, options?: AcquireOptions): Promise<T> {
    return withLockVia(this.acquire(options), fn, `${this.config.name}.withLock ${this.path}`, (handle) => (handle as Handle).unreleased);
  }

  /**
   * True if some async context of this process acquired the lock through this object and has not
   * released it yet (a lost holding not released counts, and so does a release the server refused:
   * its node is still ours).
   */
  isAcquiredInThisProcess(): boolean {
    return this.holdings.size > 0;
  }

  /** True if the calling async context holds the lock (not once it called `release()` on its last handle, even a refused one). */
  isOwnedByCurrentContext(): boolean {
    return this.holdingOfCurrentContext() !== undefined;
  }

  /**
   * @internal True while an async context of this process holds the lock through this object, or
   * an acquisition of it is in flight (a lock set keeps such a key's lock).
   */
  get busy(): boolean {
    return this.acquiring > 0 || this.holdings.size > 0;
  }

  /** Full paths of the participants of this kind, sorted by sequence: the holder(s) first. */
  async getParticipantNodes(): Promise<string[]> {
    const kinds = this.config.participantKinds ?? [this.config.kind];
    const entries = await this.config.queue.participants();
    return entries.filter((entry) => kinds.includes(entry.kind)).map((entry) => joinPath(this.path, entry.name));
  }

  /** The holding of the calling context, if any (also used by recipes, e.g. read/write rules). */
  protected holdingOfCurrentContext(): Holding | undefined {
    return this.holdings.ofCurrentContext((holding) => holding.handles.length > 0 && holding.releasing !== true && holding.refused !== true);
  }

  /**
   * Re-enters the current context's holding if there is one (re-entrant locks only). A re-entry
   * does not wait, but one whose `signal` is already aborted is refused (`ABORTED`) like every
   * other acquisition, the multi-lock's re-entry included.
   */
  protected reenter(signal?: AbortSignal): LockHandle | undefined {
    if (!this.config.reentrant) return undefined;
    const holding = this.holdingOfCurrentContext();
    if (holding === undefined) return undefined;
    // A re-entry is a grant: the same checks (our node, a session the server cannot have expired).
    const reason = this.config.queue.holdingLost(holding.seat);
    if (reason !== undefined) {
      if (isZkError(reason, 'NODE_DELETED')) throw reason;
      if (isZkError(reason, 'SESSION_CLOSED')) {
        throw new SessionClosedError(`${this.config.name}.acquire: this context held ${this.path} but its ZkSession was closed`, { cause: reason });
      }
      throw new SessionLostError(`${this.config.name}.acquire: this context held ${this.path} but lost it with its session; release it first`);
    }
    if (signal?.aborted === true) throw new AbortedError(`${this.config.name}.acquire: aborted (re-entering ${this.path})`, { cause: signal.reason, path: this.path });
    const handle = new Handle(this, holding, this.config.queue);
    holding.handles.push(handle);
    return handle;
  }

  /** The front-end's step: an answer at once, or a seat that becomes a holding once granted. */
  private start(options: AcquireOptions): Started<LockHandle> {
    const acquisition = this.acquireIn(options);
    if (acquisition.frame === undefined) return { granted: acquisition.acquired };
    const { frame, seat } = acquisition;
    this.acquiring++;
    return {
      frame,
      granted: seat.then((granted) => {
        this.acquiring--;
        return this.hold(frame, granted);
      }, this.acquisitionFailed),
    };
  }

  /**
   * Re-enters, or enqueues in the engine under a fresh owner frame, which the front-end makes the
   * owner of the code after `await acquire()` (and all it starts).
   */
  protected acquireIn(options: AcquireOptions): Acquisition {
    let reentered: LockHandle | undefined;
    try {
      reentered = this.reenter(options.signal);
    } catch (err) {
      return { frame: undefined, acquired: Promise.reject(err) };
    }
    if (reentered !== undefined) return { frame: undefined, acquired: Promise.resolve(reentered) };
    const frame = new OwnerFrame(currentFrame());
    const seat = this.config.queue.enter({
      kind: this.config.kind,
      rule: this.config.rule,
      data: this.config.data,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      onRevoke: options.onRevoke,
    });
    return { frame, seat };
  }

  /** Records a new holding and starts telling the holder about its connection. */
  protected hold(frame: OwnerFrame, seat: QueueSeat): LockHandle {
    // The session's loss is told through the session's own event; a node deleted by someone else
    // is this holding's alone. The lost channel hears every loss. Followed without making the
    // seat's signal (see `onSeatLost`).
    const lock = this;
    const onLost: HoldingListener = {
      holdingLost(reason) {
        if (lostChannel.hasSubscribers) publishLost(lock.config.recipe, lock.path, seat, lock.config.queue.session.sessionId);
        if (!isZkError(reason, 'NODE_DELETED')) return;
        lock.emit('lost', reason);
        lock.config.member?.nodeDeleted(reason);
      },
    };
    const holding: Holding = { frame, seat, handles: [], unlisten: onSeatLost(seat, onLost) };
    // Someone hears of losses: the watch that tells of our node's deletion is set now.
    if (lostChannel.hasSubscribers || this.listenerCount('lost') > 0) this.config.queue.watchHolding(seat);
    const handle = new Handle(this, holding, this.config.queue);
    holding.handles.push(handle);
    if (this.holdings.add(holding)) this.relay.join(this.news);
    return handle;
  }

  /**
   * @internal Releases one handle; deletes the node with the last one. From the call on the handle
   * is not held and its signal is aborted (`RELEASED`), while the delete goes on. A delete the
   * server refuses (NO_AUTH...) leaves the node, which is still ours: the release rejects with
   * ReleaseFailedError (`RELEASE_FAILED`, the refusal as `error`), and the same handle may release
   * again (docs/errors.md, "Releasing").
   */
  releaseHandle(holding: Holding, handle: Handle): Promise<void> {
    if (!handle.unreleased || !holding.handles.includes(handle)) {
      return Promise.reject(new NotOwnerError(`${this.config.name}.release: this handle of ${this.path} was already released`));
    }
    if (holding.releasing === true) return Promise.reject(new NotOwnerError(`${this.config.name}.release: this handle of ${this.path} is being released`));
    handle.endNow();
    if (holding.handles.length > 1) {
      this.dropHandle(holding, handle);
      return Promise.resolve();
    }
    holding.releasing = true;
    holding.refused = false;
    // A lost holding's release deletes nothing (its node is gone): only a real one is told.
    const deletes = !isSeatLost(holding.seat);
    let leaving: Promise<void>;
    try {
      leaving = this.leave(holding.seat);
    } catch (err) {
      holding.releasing = false;
      holding.refused = true;
      return Promise.reject(err);
    }
    // One `then`, not an async function: every release passes here.
    return leaving.then(
      () => {
        holding.releasing = false;
        if (deletes && releaseChannel.hasSubscribers) publishRelease(this.config.recipe, this.path, holding.seat, this.config.queue.session.sessionId);
        this.dropHandle(holding, handle);
      },
      (err: unknown) => {
        holding.releasing = false;
        holding.refused = true;
        if (deletes && releaseChannel.hasSubscribers) publishRelease(this.config.recipe, this.path, holding.seat, this.config.queue.session.sessionId, err);
        throw new ReleaseFailedError(
          `${this.config.name}.release: ${holding.seat.path} could not be deleted (${String(err)}): the node is still ours, though this handle no longer holds it; release again with err.handle.release() once the cause is fixed, or close the session`,
          handle,
          err,
        );
      },
    );
  }

  /** The handle is released; the holding ends with its last one. */
  private dropHandle(holding: Holding, handle: Handle): void {
    holding.handles.splice(holding.handles.indexOf(handle), 1);
    if (holding.handles.length > 0) return;
    holding.unlisten();
    if (this.holdings.delete(holding)) {
      this.relay.leave(this.news);
      this.tellIfIdle();
    }
  }

  /** Tells the lock's set, if it has one, that the lock holds nothing and waits for nothing. */
  private tellIfIdle(): void {
    if (this.config.member !== undefined && this.acquiring === 0 && this.holdings.size === 0) this.config.member.idle();
  }

  /** Gives the node back to the engine; recipes may defer it (read/write downgrade). */
  protected leave(seat: QueueSeat): Promise<void> {
    return this.config.queue.leave(seat);
  }
}
