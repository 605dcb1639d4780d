import {
  AbortedError,
  isZkError,
  LockTimeoutError,
  MultiReleaseError,
  NodeDeletedError,
  NotOwnerError,
  ReleasedError,
  SessionClosedError,
  SessionLostError,
  type AcquireOptions,
  type LockEvents,
  type LockHandle,
  type ZkSession,
} from '@zk-recipes/core';
import {
  acquireVia,
  currentFrame,
  Deadline,
  settleWithin,
  disposeHandle,
  followFirst,
  OwnerHoldings,
  tryAcquireVia,
  withLockVia,
  type AcquireSource,
  type LinkedSignal,
  type OwnerFrame,
  type Started,
} from '@zk-recipes/core/recipe-kit';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { EventEmitter } from 'eventemitter3';
import { acquisitionOrder } from './acquisitionOrder.js';
import { ConnectionRelay } from './ConnectionRelay.js';
import { HolderFrame } from './HolderFrame.js';
import type { MultiLockHandle } from './MultiLockHandle.js';
import type { MultiLockMember } from './MultiLockMember.js';
import { parseMultiLockMembers, parseMultiLockOptions, parseMultiLockPaths, type MultiLockOptions } from './options.js';
import { releaseInReverse } from './releaseInReverse.js';

const NAME = 'InterProcessMultiLock';

/** One acquisition of all members, held by one owner context. */
class Holding implements MultiLockHandle {
  /** A release is on its way: not re-entered, not released again meanwhile. */
  releasing = false;
  /** `release()` was called: from then on not held, its signal aborted. */
  private releaseCalled = false;
  /** The members given back so far, by index: a release after a refused one gives back the others. */
  readonly given: boolean[];
  /** Aborts at `release()` (`RELEASED`). */
  private readonly ended = new AbortController();
  /** Aborts with the first member's signal, or at `release()`. */
  private readonly linked: LinkedSignal;
  constructor(
    private readonly lock: InterProcessMultiLock,
    readonly frame: OwnerFrame,
    readonly lockPaths: readonly string[],
    readonly members: readonly LockHandle[],
  ) {
    this.given = members.map(() => false);
    this.linked = followFirst([...members.map((member) => member.signal), this.ended.signal]);
  }
  /** Every member still ours, checked now (each member's `held` checks itself), and not released. */
  get held(): boolean {
    return !this.releaseCalled && this.members.every((member) => member.held);
  }
  /** Reading it first runs each member's check: a member lost now aborts its signal, and so this one. */
  get signal(): AbortSignal {
    if (!this.releaseCalled) for (const member of this.members) if (!member.held) break;
    return this.linked.signal;
  }
  /** Whether `release()` was called on this handle. */
  get released(): boolean {
    return this.releaseCalled;
  }
  /** Whether `release()` may be called: never called, or some member was not given back. */
  get unreleased(): boolean {
    return !this.releaseCalled || this.given.includes(false);
  }
  /** `release()` was called: not held from now on, the signal aborts (`RELEASED`), members or not. */
  endByRelease(): void {
    if (this.releaseCalled) return;
    this.releaseCalled = true;
    this.ended.abort(new ReleasedError(`${NAME} [${this.lockPaths.join(', ')}] was released by its holder: this handle holds nothing any more`));
    // The members' signals no longer reach this one (nothing of it stays on them).
    this.linked.unlink();
  }
  get paths(): readonly string[] {
    return this.members.map((member) => member.path);
  }
  get fencingTokens(): readonly bigint[] {
    return this.members.map((member) => member.fencingToken);
  }
  get grantedAt(): number {
    return Math.max(...this.members.map((member) => member.grantedAt));
  }
  release(): Promise<void> {
    return this.lock.releaseHolding(this);
  }
  [Symbol.asyncDispose](): Promise<void> {
    return disposeHandle(this, `${NAME}: await using`, () => this.unreleased);
  }
}

/**
 * Holds several locks as one (Curator's `InterProcessMultiLock`): all of them or none.
 *
 * Members are acquired one after another under ONE deadline and one AbortSignal for the whole
 * acquisition. On the first failure (timeout, abort, any error) it stops and releases what it
 * already holds, last first, so nothing stays held and no node stays behind. By default members
 * are taken in canonical order (sorted by path), so two multi-locks over the same locks, listed
 * in different orders, never deadlock each other.
 *
 * Ownership is by async context, like the members': the code after `await multi.acquire()` (and
 * everything it starts) holds the multi-lock and every member, so it may `release()` without the
 * handle, acquire a member again (re-entrant members re-enter) or acquire the multi-lock again
 * (re-entrant when all its members are).
 */
export class InterProcessMultiLock extends EventEmitter<LockEvents> {
  /** The members in acquisition order. */
  readonly members: readonly MultiLockMember[];
  private readonly holdings = new OwnerHoldings<Holding>();
  private readonly relay: ConnectionRelay;
  /** What the acquire channel says about this multi-lock's acquisitions. */
  private readonly source: AcquireSource;
  /** The front-end's step: the members are taken under a holder frame of this acquisition's own. */
  private readonly step = (options: AcquireOptions): Started<MultiLockHandle> => {
    const frame = new HolderFrame(currentFrame());
    return { frame, granted: this.acquireAll(options, frame) };
  };

  /**
   * @param members the locks to hold together, each listed once (any object with the lock API).
   * @throws InvalidArgumentError (`INVALID_ARGUMENT`) on an empty list, a non-lock or a duplicate.
   */
  constructor(members: readonly MultiLockMember[], options?: MultiLockOptions) {
    super();
    const parsedMembers = parseMultiLockMembers(members, NAME);
    const parsed = parseMultiLockOptions(options, NAME);
    this.members = Object.freeze(acquisitionOrder(parsedMembers, parsed.order));
    this.relay = new ConnectionRelay(this.members, (event) => this.emit(event));
    const first = this.members[0] as { session?: { sessionId?: unknown } };
    this.source = {
      recipe: 'multi-lock',
      path: this.paths.join(','),
      // Members are any objects with the lock API: the first one's session, if it names one.
      sessionId: () => (typeof first.session?.sessionId === 'string' ? first.session.sessionId : ''),
      reenters: () => this.isOwnedByCurrentContext(),
    };
  }

  /**
   * A multi-lock of re-entrant {@link InterProcessMutex}es, one per path, on one session.
   * @throws InvalidArgumentError (`INVALID_ARGUMENT`) on an empty list, a duplicate or a bad path.
   */
  static fromPaths(session: ZkSession, paths: readonly string[], options?: MultiLockOptions): InterProcessMultiLock {
    const parsedPaths = parseMultiLockPaths(paths, `${NAME}.fromPaths`);
    return new InterProcessMultiLock(
      parsedPaths.map((path) => new InterProcessMutex(session, path)),
      options,
    );
  }

  /** The members' lock directories, in acquisition order. */
  get paths(): readonly string[] {
    return this.members.map((member) => member.path);
  }

  /**
   * Waits until every member is held and returns a handle. `timeoutMs` bounds the whole
   * acquisition; `signal` aborts it. On failure nothing is left held. `onRevoke` goes to every
   * member: it is called when a revocation request is written to any member's node, once all members
   * are held and `acquire()` resolved (a member this context already held is re-entered, and keeps
   * what its first acquisition asked for).
   * @throws LockTimeoutError (`LOCK_TIMEOUT`), AbortedError (`ABORTED`), SessionLostError
   * (`SESSION_LOST`) or whatever a member threw; MultiReleaseError (`MULTI_RELEASE_FAILED`, the
   * acquisition failure first in `errors`) if giving back the members already held failed too.
   */
  acquire(options?: AcquireOptions): Promise<MultiLockHandle> {
    return acquireVia(this.step, options, `${NAME}.acquire`, this.source);
  }

  /**
   * Like `acquire`, but resolves to `null` instead of throwing `LOCK_TIMEOUT`. `timeoutMs`
   * defaults to 0: take the members only if each is free now.
   */
  tryAcquire(options?: AcquireOptions): Promise<MultiLockHandle | null> {
    return tryAcquireVia(this.step, options, `${NAME}.tryAcquire`, this.source);
  }

  /**
   * Releases the innermost acquisition held by the calling async context.
   * @throws NotOwnerError (`NOT_OWNER`) if this context does not hold the multi-lock;
   * MultiReleaseError (`MULTI_RELEASE_FAILED`) if any member failed to release.
   */
  release(): Promise<void> {
    const holding = this.holdingOfCurrentContext(true);
    if (holding === undefined) {
      return Promise.reject(new NotOwnerError(`${NAME}.release: [${this.paths.join(', ')}] is not held by this async context`));
    }
    return this.releaseHolding(holding);
  }

  /**
   * Acquires, runs `fn` with the handle, and always releases; returns what `fn` returns, or rejects
   * with what it threw. If some member's release is refused, that member's node stays: it rejects
   * with ReleaseFailedError (`RELEASE_FAILED`, the MultiReleaseError as `error`), whose `handle`
   * releases the rest and whose `suppressed` is what `fn` threw, if it did.
   */
  withLock<T>(fn: (handle: MultiLockHandle) => T | Promise<T>, options?: AcquireOptions): Promise<T> {
    return withLockVia(this.acquire(options), fn, `${NAME}.withLock [${this.paths.join(', ')}]`, (handle) => (handle as Holding).unreleased);
  }

  /** True if some async context of this process acquired the multi-lock through this object and has not called `release()` on it. */
  isAcquiredInThisProcess(): boolean {
    return this.holdings.some((holding) => !holding.released);
  }

  /** True if the calling async context holds the multi-lock. */
  isOwnedByCurrentContext(): boolean {
    return this.holdingOfCurrentContext() !== undefined;
  }

  /**
   * @internal Releases one acquisition: from the call on the handle is not held and its signal is
   * aborted (`RELEASED`); then every member not given back yet, last first, all attempted. A member
   * whose delete the server refused keeps its node; a later release gives back the rest.
   */
  async releaseHolding(holding: Holding): Promise<void> {
    if (!holding.unreleased) throw new NotOwnerError(`${NAME}.release: this handle was already released`);
    if (holding.releasing) throw new NotOwnerError(`${NAME}.release: this handle is being released`);
    holding.endByRelease();
    holding.releasing = true;
    let failures: unknown[];
    try {
      failures = await releaseInReverse(holding.members, holding.given);
    } finally {
      holding.releasing = false;
    }
    if (failures.length > 0) {
      const released = holding.lockPaths.filter((_, i) => holding.given[i]);
      const stillHeld = holding.lockPaths.filter((_, i) => !holding.given[i]);
      const given = released.length === 0 ? 'none released' : `[${released.join(', ')}] released (someone else may hold them now)`;
      throw new MultiReleaseError(
        `${NAME}.release: ${failures.length} of ${holding.members.length} members failed to release: [${stillHeld.join(', ')}] still ours, ${given}; release again for the rest`,
        failures,
        { released, stillHeld },
      );
    }
    if (this.holdings.delete(holding)) this.relay.detach();
  }

  /**
   * Takes the members in order, each in the frame the previous one's acquisition left us in (so
   * re-entrant members see an owner that already holds them), then makes `frame` the holder.
   */
  private async acquireAll(options: AcquireOptions, frame: HolderFrame): Promise<MultiLockHandle> {
    const deadline = Deadline.start(options.timeoutMs);
    const held: LockHandle[] = [];
    // A revocation request on any member's node asks the multi-lock's holder to release. One on a
    // member taken while later ones are still being acquired is told once all are held (after
    // acquire() resolved: the caller has the handle to release with).
    const onRevoke = options.onRevoke;
    let whole = false;
    let early = false;
    const memberRevoke =
      onRevoke === undefined
        ? undefined
        : (): void => {
            if (whole) onRevoke();
            else early = true;
          };
    try {
      for (const member of this.members) {
        this.throwIfMemberLost(held, member);
        if (options.signal?.aborted === true) {
          throw new AbortedError(`${NAME}.acquire: aborted before ${member.path}`, { cause: options.signal.reason, path: member.path });
        }
        if (deadline.expired()) throw this.timedOut(deadline, member);
        const memberOptions: AcquireOptions = {};
        const timeoutMs = deadline.remainingMs();
        if (timeoutMs !== undefined) memberOptions.timeoutMs = timeoutMs;
        // Stop waiting as soon as the caller aborts or a member we already hold is lost.
        const stopSignals = [...(options.signal === undefined ? [] : [options.signal]), ...held.map((handle) => handle.signal)];
        const stop = stopSignals.length > 0 ? followFirst(stopSignals) : undefined;
        if (stop !== undefined) memberOptions.signal = stop.signal;
        if (memberRevoke !== undefined) memberOptions.onRevoke = memberRevoke;
        try {
          held.push(await member.acquire(memberOptions));
        } catch (err) {
          this.throwIfMemberLost(held, member, err);
          throw isZkError(err, 'LOCK_TIMEOUT') ? this.timedOut(deadline, member, err) : err;
        } finally {
          stop?.unlink();
        }
      }
      this.throwIfMemberLost(held);
    } catch (err) {
      // Given back, and waited for no longer than the failure's settle-by moment (its deadline or
      // abort plus the slack, docs/architecture.md "Deadlines"): a stalled server must not hold
      // the caller. Past it the releases go on in the background.
      const releasing = releaseInReverse(held, held.map(() => false));
      const released = await settleWithin(releasing, deadline.settleBy(err));
      if (!released.settled) throw err;
      const failures = await releasing;
      if (failures.length === 0) throw err;
      throw new MultiReleaseError(
        `${NAME}.acquire: failed (${String(err)}) and ${failures.length} of ${held.length} members already held could not be released`,
        [err, ...failures],
      );
    }
    // We now run in the innermost member's frame: the caller's continuation goes below it.
    frame.attachTo(currentFrame());
    const holding = this.hold(frame, held);
    whole = true;
    if (early) setImmediate(() => !holding.released && tellEarlyRevocation(onRevoke!));
    return holding;
  }

  /** Fails the acquisition if a member already held lost its ownership (e.g. its session). */
  private throwIfMemberLost(held: readonly LockHandle[], next?: MultiLockMember, cause?: unknown): void {
    const lost = held.find((handle) => handle.signal.aborted);
    if (lost === undefined) return;
    const waiting = next === undefined ? '' : ` while acquiring ${next.path}`;
    // A member's signal aborted by close() is not a loss: report it as the close it was.
    if (isZkError(lost.signal.reason, 'SESSION_CLOSED')) {
      throw new SessionClosedError(`${NAME}.acquire: the ZkSession of ${lost.path} was closed${waiting}`, { cause: lost.signal.reason, path: lost.path });
    }
    // Someone else deleted a member's node: say so, as the member itself does.
    if (isZkError(lost.signal.reason, 'NODE_DELETED')) {
      throw new NodeDeletedError(`${NAME}.acquire: ${lost.path} was deleted by someone else${waiting}`, { cause: lost.signal.reason, path: lost.path });
    }
    throw new SessionLostError(`${NAME}.acquire: lost ${lost.path}${waiting}`, { cause: lost.signal.reason ?? cause, path: lost.path });
  }

  private timedOut(deadline: Deadline, member: MultiLockMember, cause?: unknown): LockTimeoutError {
    const within = deadline.totalMs === 0 ? 'was not free' : `was not acquired within the ${deadline.totalMs} ms of the whole acquisition`;
    return new LockTimeoutError(`${NAME}.acquire: ${member.path} ${within}`, { cause, path: member.path });
  }

  private hold(frame: OwnerFrame, handles: LockHandle[]): Holding {
    const holding = new Holding(this, frame, this.paths, handles);
    if (this.holdings.add(holding)) this.relay.attach();
    holding.signal.addEventListener(
      'abort',
      () => {
        // Neither close() nor a release is a loss (QueueLock does not emit them either).
        const reason: unknown = holding.signal.reason;
        if (holding.released || isZkError(reason, 'SESSION_CLOSED') || isZkError(reason, 'RELEASED')) return;
        this.emit('lost', reason instanceof Error ? reason : new Error(String(reason)));
      },
      { once: true },
    );
    return holding;
  }

  /**
   * The calling context's holding whose release was not called (lost or not: a re-entry reports
   * the loss); with `partly`, also one a release gave back only in part.
   */
  private holdingOfCurrentContext(partly = false): Holding | undefined {
    return this.holdings.ofCurrentContext((holding) => (partly ? holding.unreleased : !holding.released) && !holding.releasing);
  }
}

/**
 * Tells a revocation request that came while later members were still being acquired. What
 * `onRevoke` throws here has no member session to go to: it is a process warning.
 */
function tellEarlyRevocation(onRevoke: () => void): void {
  try {
    onRevoke();
  } catch (err) {
    process.emitWarning(`${NAME}: onRevoke threw: ${String(err)}`);
  }
}
