import {
  InvalidArgumentError,
  isZkError,
  LockTimeoutError,
  NodeDeletedError,
  SessionLostError,
  type AcquireOptions,
  type ZkSession,
} from '@zk-recipes/core';
import {
  acquireVia,
  Deadline,
  exclusiveRule,
  followFirst,
  joinPath,
  LockQueue,
  lostChannel,
  nodeDataOf,
  pauseAfterLostSession,
  parseOptions,
  publishLost,
  publishRelease,
  releaseChannel,
  RetryBudget,
  sessionEnded,
  settleWithin,
  tryAcquireVia,
  withLockVia,
  validateLockPath,
  type AcquireSource,
  type AcquireStep,
  type LinkedSignal,
  type OrderingRule,
  type QueueSeat,
} from '@zk-recipes/core/recipe-kit';
import { EventEmitter } from 'eventemitter3';
import { asLeases, type Leases } from './Leases.js';
import { z } from 'zod';
import { LEASE_KIND, leaseKind, weightOfKind } from './leaseKinds.js';
import { isUnreleased, LeaseNode, type Lease } from './Lease.js';
import { maxLeasesRecord } from './maxLeasesRecord.js';
import { parseSemaphoreOptions, type SemaphoreLayout, type SemaphoreOptions } from './options.js';
import { curatorCountRule, failInsteadOfWaiting, leaseQueueRule } from './rules.js';

import type { SharedCount } from './SharedCount.js';

/** Curator's InterProcessSemaphoreV2: internal lock directory, leases directory, lock node kind. */
const CURATOR_LOCKS = 'locks';
const CURATOR_LEASES = 'leases';
const CURATOR_LOCK_KIND = 'lock-';

const quantitySchema = z.number().int().min(1).max(2 ** 31 - 1);

/** How one acquisition waits: its options, and one deadline over its waits (`curator`: lock, then leases). */
interface Wait {
  options: AcquireOptions;
  deadline: Deadline;
}

/** Events of an {@link InterProcessSemaphore}. */
export interface SemaphoreEvents {
  /**
   * Leases held through this object are gone: their ZooKeeper session was lost, or someone else
   * deleted their node (`NODE_DELETED`). The leases' `signal` aborted with `reason` first.
   */
  lost: (reason: Error, leasePath: string) => void;
}

/**
 * A distributed counting semaphore: at no moment do more than `maxLeases` leases exist across all
 * processes. Leases are held by the process that acquired them until released (explicitly, by
 * `await using`, or by the end of its ZooKeeper session). Not re-entrant: every acquire takes a
 * new lease.
 *
 * Two layouts (see docs/semaphore.md). `queue` (default): one FIFO queue of lease nodes whose
 * names carry their lease count; no internal lock (an uncontended acquire is one round trip), a
 * release wakes at most `maxLeases` waiting processes and admits the waiters it frees leases for
 * at once, `acquireMany(n)` takes all n leases at once (no deadlock).
 * `curator`: Curator's
 * InterProcessSemaphoreV2 layout and protocol, to share a semaphore with Java services.
 */
export class InterProcessSemaphore extends EventEmitter<SemaphoreEvents> {
  /** The semaphore's path. */
  readonly path: string;
  /** The node layout: `queue` (ours) or `curator` (Curator's InterProcessSemaphoreV2). */
  readonly layout: SemaphoreLayout;
  private readonly fixedMax: number | undefined;
  private readonly count: SharedCount | undefined;
  private readonly data: Uint8Array | null;
  /** `queue`: the lease queue at `path`. `curator`: `<path>/leases`. */
  private readonly leases: LockQueue;
  /** `curator` only: the internal lock at `<path>/locks`. */
  private readonly internalLock: LockQueue | undefined;
  /** What the acquire channel says about this semaphore's acquisitions. */
  private readonly source: AcquireSource;

  constructor(
    /** The session the leases are taken in. */
    readonly session: ZkSession,
    path: string,
    options: SemaphoreOptions,
  ) {
    super();
    this.path = validateLockPath(path, 'semaphore path');
    const parsed = parseSemaphoreOptions(options, 'InterProcessSemaphore');
    this.layout = parsed.layout;
    this.fixedMax = parsed.maxLeases;
    this.count = parsed.count;
    this.data = nodeDataOf(parsed.data);
    // A fixed maximum is recorded in the lease directory, checked by the engine (INCONSISTENT_MAX_LEASES).
    const record = this.fixedMax === undefined ? undefined : maxLeasesRecord(this.path, this.fixedMax);
    if (this.layout === 'queue') {
      this.leases = new LockQueue(session, this.path, { record });
    } else {
      this.leases = new LockQueue(session, joinPath(this.path, CURATOR_LEASES), { record });
      this.internalLock = new LockQueue(session, joinPath(this.path, CURATOR_LOCKS));
    }
    this.source = { recipe: 'semaphore', path: this.path, sessionId: () => session.sessionId };
  }

  /**
   * Waits for one lease.
   * @throws LockTimeoutError (`LOCK_TIMEOUT`), AbortedError (`ABORTED`), SessionLostError
   * (`SESSION_LOST`), InconsistentMaxLeasesError (`INCONSISTENT_MAX_LEASES`). On every failure no
   * node of this call is left behind.
   */
  async acquire(options?: AcquireOptions): Promise<Lease> {
    const [lease] = await acquireVia(this.taking(1), options, 'InterProcessSemaphore.acquire', this.source, 1);
    return lease!;
  }

  /**
   * Waits for `quantity` leases and returns them all, or none (fails as {@link acquire} does).
   * In the `queue` layout they are backed by one node, deleted when the last of them is released.
   * The result is an array that `await using` disposes (see {@link Leases}).
   */
  async acquireMany(quantity: number, options?: AcquireOptions): Promise<Leases> {
    const n = parseOptions(quantitySchema, quantity, 'InterProcessSemaphore.acquireMany quantity');
    return asLeases(await acquireVia(this.taking(n), options, 'InterProcessSemaphore.acquireMany', this.source, n), `semaphore ${this.path}`);
  }

  /**
   * Acquires one lease, runs `fn` with it, and always releases it; returns what `fn` returns, or
   * rejects with what it threw. A release the server refuses leaves the lease's node: then it
   * rejects with ReleaseFailedError (`RELEASE_FAILED`), whose `handle` is the lease and whose
   * `suppressed` is what `fn` threw, if it did (docs/errors.md, "Releasing").
   */
  withLock<T>(fn: (lease: Lease) => T | Promise<T>, options?: AcquireOptions): Promise<T> {
    return withLockVia(this.acquire(options), fn, `InterProcessSemaphore.withLock ${this.path}`, isUnreleased);
  }

  /**
   * Like {@link acquire}, but resolves to `null` instead of throwing `LOCK_TIMEOUT`. `timeoutMs`
   * defaults to 0: take a lease only if one is free now (and nobody waits before us).
   */
  async tryAcquire(options?: AcquireOptions): Promise<Lease | null> {
    const leases = await tryAcquireVia(this.taking(1), options, 'InterProcessSemaphore.tryAcquire', this.source, 1);
    return leases?.[0] ?? null;
  }

  /** Like {@link acquireMany}, but resolves to `null` instead of throwing `LOCK_TIMEOUT` (default timeout 0). */
  async tryAcquireMany(quantity: number, options?: AcquireOptions): Promise<Leases | null> {
    const n = parseOptions(quantitySchema, quantity, 'InterProcessSemaphore.tryAcquireMany quantity');
    const leases = await tryAcquireVia(this.taking(n), options, 'InterProcessSemaphore.tryAcquireMany', this.source, n);
    return leases === null ? null : asLeases(leases, `semaphore ${this.path}`);
  }

  /** Full paths of the lease nodes (holders and waiters), sorted by sequence: holders first. */
  async getParticipantNodes(): Promise<string[]> {
    const entries = await this.leases.participants();
    return entries.filter((entry) => weightOfKind(entry.kind) !== null).map((entry) => joinPath(this.leases.path, entry.name));
  }

  /** The current number of leases: `maxLeases`, or the shared count's latest value. */
  private maxLeases(): number {
    return this.fixedMax ?? this.count!.getCount();
  }

  /** A change of the shared count has arrived and its value is being read (see `SharedCount.settling`). */
  private countSettling(): boolean {
    return this.count?.settling ?? false;
  }

  /** The acquire front-end's step: `quantity` leases (owned by this process, not by an async context). */
  private taking(quantity: number): AcquireStep<Lease[]> {
    return (options) => ({ granted: this.take(quantity, options) });
  }

  private async take(quantity: number, options: AcquireOptions): Promise<Lease[]> {
    if (this.fixedMax !== undefined && quantity > this.fixedMax) {
      throw new InvalidArgumentError(`InterProcessSemaphore ${this.path}: asked for ${quantity} leases, there are only ${this.fixedMax}`);
    }
    const wait: Wait = { options, deadline: Deadline.start(options.timeoutMs) };
    try {
      return await (this.layout === 'queue' ? this.takeQueued(quantity, wait) : this.takeCuratorStyle(quantity, wait));
    } catch (err) {
      await this.cleanedUp(wait.deadline.settleBy(err));
      throw err;
    }
  }

  /**
   * A deadline or abort that fires while a create is in flight leaves its clean-up to the engine,
   * in the background. While connected that is one round trip: wait for it, so that when an
   * acquire rejects no node of ours is left — but no later than `by`, the failure's settle-by moment
   * (docs/architecture.md, "Deadlines": a stalled server must not hold the caller). While
   * disconnected it finishes on reconnection, or the session's end removes the node.
   */
  private async cleanedUp(by: number | undefined): Promise<void> {
    if (!this.session.isConnected) return;
    await settleWithin(Promise.all([this.leases.settled(), this.internalLock?.settled()]), by);
  }

  /** The engine's `prepare` step: start the shared count (if the maximum is one) before our first node. */
  private preparation(): (() => Promise<void>) | undefined {
    const count = this.count;
    return count === undefined ? undefined : () => count.start();
  }

  /** `queue` layout: one node carrying all `quantity` leases. */
  private async takeQueued(quantity: number, wait: Wait): Promise<Lease[]> {
    const seat = await this.leases.enter({
      prepare: this.preparation(),
      kind: leaseKind(quantity),
      rule: this.ruleFor(leaseQueueRule(() => this.maxLeases(), () => this.countSettling()), wait),
      data: this.data,
      timeoutMs: remaining(wait),
      signal: wait.options.signal,
      onRevoke: wait.options.onRevoke,
      onRecheck: this.recheckSubscription(),
    });
    return this.leaseNode(this.leases, seat, quantity).leases(quantity);
  }

  /**
   * `curator` layout, as InterProcessSemaphoreV2 does it: under the internal lock, create a lease
   * node and wait until the leases directory has at most maxLeases children. For `quantity` > 1
   * we keep the internal lock until all leases are ours (all or none, never a deadlock among
   * our own clients), then release it.
   *
   * The step (internal lock, leases) belongs to one ZooKeeper session: a lease node is only ever
   * created under the lock, and a lease granted on a lost session is gone. So when the session is
   * lost before the step is whole, the step ends (the server removed its nodes) and starts again
   * on the next session, while the deadline, the signal and the session's retry policy allow
   * (docs/semaphore.md, "Losing the session while waiting").
   */
  private async takeCuratorStyle(quantity: number, wait: Wait): Promise<Lease[]> {
    // Before the internal lock creates the semaphore's directories: a refused lease leaves none.
    this.leases.assertFits(LEASE_KIND, this.data);
    let losses: RetryBudget | undefined; // made at the first lost session: none on the common path
    for (;;) {
      const step = await this.curatorStep(quantity, wait);
      if (!(step instanceof SessionLostError)) return step;
      losses ??= new RetryBudget(this.session.retryPolicy, `semaphore ${this.path}`, { startedAt: wait.deadline.startedAt });
      await pauseAfterLostSession(this.session, `semaphore ${this.path}`, step, losses, wait.deadline.endsAtMs, wait.options.signal);
    }
  }

  /**
   * One attempt of the `curator` layout's step, on the ZooKeeper session current at its start:
   * the leases, or the SessionLostError that ended it (its nodes went with the session; nothing
   * of it is left). Every other failure rejects, after giving back what it took.
   */
  private async curatorStep(quantity: number, wait: Wait): Promise<Lease[] | SessionLostError> {
    const lock = this.internalLock!;
    const callerSignal = wait.options.signal;
    // The engine alone would enqueue a waiter again on the next session: here the whole step does.
    const generation = this.session.generation;
    const sessionSignal = this.session.sessionSignal;
    const lockStop = callerSignal === undefined ? undefined : followFirst([callerSignal, sessionSignal]);
    let lockSeat: QueueSeat;
    try {
      lockSeat = await lock.enter({
        prepare: this.preparation(),
        kind: CURATOR_LOCK_KIND,
        rule: this.ruleFor(exclusiveRule, wait),
        timeoutMs: remaining(wait),
        signal: lockStop?.signal ?? sessionSignal,
      });
    } catch (err) {
      return this.stepFailed(err, undefined, generation, wait, quantity);
    } finally {
      lockStop?.unlink();
    }
    // Every part taken so far: the lock, then the leases. A wait for the next lease ends as soon
    // as one of them is lost, and no part lost may be handed out.
    const parts: QueueSeat[] = [lockSeat];
    let failure: unknown;
    let failed = false;
    try {
      for (let i = 0; i < quantity; i++) {
        const stop = linked(callerSignal, parts);
        try {
          parts.push(
            await this.leases.enter({
              kind: LEASE_KIND,
              rule: this.ruleFor(curatorCountRule(() => this.maxLeases(), () => this.countSettling()), wait),
              data: this.data,
              timeoutMs: remaining(wait),
              signal: stop?.signal ?? lockSeat.signal,
              onRevoke: wait.options.onRevoke,
              onRecheck: this.recheckSubscription(),
            }),
          );
        } finally {
          stop?.unlink();
        }
      }
    } catch (err) {
      failure = err;
      failed = true;
    }
    // Given back whatever happened; waited for no longer than the deadline (or the failure's
    // settle-by moment) plus the slack: a stalled server must not hold the caller.
    const by = wait.deadline.settleBy(failed ? failure : undefined);
    const released = await settleWithin(lock.leave(lockSeat), by);
    if (released.settled && released.error !== undefined && !failed) throw released.error;
    const taken = parts.slice(1);
    const lost = failed && isZkError(failure, 'RETRIES_EXHAUSTED') ? undefined : parts.find((part) => part.signal.aborted);
    if (!failed && lost === undefined) return taken.flatMap((seat) => this.leaseNode(this.leases, seat, 1).leases(1));
    await settleWithin(Promise.all(taken.map((seat) => this.leases.leave(seat))), by);
    if (lost === undefined) return this.stepFailed(failure, undefined, generation, wait, quantity);
    return this.stepFailed(failed ? failure : lost.signal.reason, lost, generation, wait, quantity);
  }

  /**
   * How a `curator`-layout step that failed ends, once it gave back what it took: the
   * SessionLostError of its session (the step starts again), or an error to reject with. `lost`
   * is the part (internal lock or lease) that was lost before the step was whole, if one was.
   */
  private async stepFailed(failure: unknown, lost: QueueSeat | undefined, generation: number, wait: Wait, quantity: number): Promise<SessionLostError> {
    // The retry policy gave up (on a step's lost connections, or on another session): final.
    if (isZkError(failure, 'RETRIES_EXHAUSTED')) throw failure;
    const before = quantity === 1 ? 'before its lease was granted' : `before all ${quantity} leases were granted`;
    const sessionLost = (cause: unknown) => new SessionLostError(`semaphore ${this.path}: the ZooKeeper session was lost ${before}`, { cause });
    const reason: unknown = lost === undefined ? failure : lost.signal.reason;
    if (isZkError(reason, 'SESSION_LOST')) return sessionLost(reason);
    if (lost === undefined && this.session.generation !== generation) return sessionLost(failure);
    if (!isZkError(reason, 'NODE_DELETED')) throw failure;
    // A node of ours read as deleted just before its session's end is that end (see sessionEnded).
    if (await sessionEnded(this.session, generation, wait.deadline.remainingMs(), wait.options.signal)) return sessionLost(reason);
    if (lost === undefined) throw failure;
    const what = lost.path.startsWith(`${this.internalLock!.path}/`) ? 'internal lock node' : 'lease node';
    throw new NodeDeletedError(`semaphore ${this.path}: our ${what} ${lost.name} was deleted by someone else ${before}`, { cause: reason, path: lost.path });
  }

  private ruleFor(rule: OrderingRule, wait: Wait): OrderingRule {
    if (!wait.deadline.isTry) return rule;
    return failInsteadOfWaiting(rule, () => new LockTimeoutError(`semaphore ${this.path}: no lease free now`));
  }

  private recheckSubscription(): ((listener: () => void) => () => void) | undefined {
    const count = this.count;
    if (count === undefined) return undefined;
    // Every new value, and the end of every read of a change (the value may be the same).
    return (listener) => count.onSettled(listener);
  }

  /**
   * The leases a granted seat backs. Both layouts come through here: the seat's `fencingToken` is
   * the lease node's czxid, taken from the stat the create (CREATE2) returned, or from the stat
   * of a node adopted after a lost create reply.
   */
  private leaseNode(queue: LockQueue, seat: QueueSeat, weight: number): LeaseNode {
    const onLost = (reason: unknown): void => {
      if (lostChannel.hasSubscribers) publishLost('semaphore', this.path, seat, this.session.sessionId);
      if (isZkError(reason, 'SESSION_CLOSED')) return; // close() is not a loss
      this.emit('lost', reason instanceof Error ? reason : new Error(String(reason)), seat.path);
    };
    // Followed without making the seat's signal; someone hears of losses: our node is watched now.
    const unlisten = queue.onHoldingLost(seat, onLost);
    if (lostChannel.hasSubscribers || this.listenerCount('lost') > 0) queue.watchHolding(seat);
    // Still told while the delete is on its way, and after one the server refused: the node is ours.
    return new LeaseNode(queue, seat, this.data, weight, async () => {
      // A lost lease's release deletes nothing (its node is gone): only a real one is told.
      const deletes = !queue.isLost(seat);
      try {
        await queue.leave(seat);
      } catch (err) {
        if (deletes && releaseChannel.hasSubscribers) publishRelease('semaphore', this.path, seat, this.session.sessionId, err);
        throw err;
      }
      if (deletes && releaseChannel.hasSubscribers) publishRelease('semaphore', this.path, seat, this.session.sessionId);
      unlisten();
    });
  }
}

/**
 * Milliseconds left until the deadline; 0 for a try, which fails in its rule instead of waiting
 * (see `ruleFor`) and, like every acquisition, gets its first look within the slack however the
 * server answers (docs/architecture.md, "Deadlines").
 */
function remaining(wait: Wait): number | undefined {
  return wait.deadline.remainingMs();
}

/**
 * A signal that aborts with the caller's or with the signal of any of `parts`; undefined when one
 * signal does (no caller's signal, one part): then pass that part's own.
 */
function linked(callerSignal: AbortSignal | undefined, parts: readonly QueueSeat[]): LinkedSignal | undefined {
  if (callerSignal === undefined && parts.length === 1) return undefined;
  const signals = parts.map((part) => part.signal);
  return followFirst(callerSignal === undefined ? signals : [callerSignal, ...signals]);
}
