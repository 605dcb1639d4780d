import { isZkError, NodeDeletedError } from '../errors.js';
import { joinPath, newProtectedName, type QueueEntry } from '../nodes/index.js';
import type { OrderingRule } from './OrderingRule.js';
import type { Stat } from '../session/types.js';
import type { ZkSession } from '../session/ZkSession.js';
import { RetryBudget } from '../retry/RetryBudget.js';
import type { Recheck } from '../signals/Recheck.js';
import { StopSignal } from '../signals/StopSignal.js';
import { waitForChildrenChange, type WatchedListing } from '../watch/ChildrenWatch.js';
import { AnyOfWait, type AnyOfSink } from './AnyOfWait.js';
import type { EngineScope } from './EngineScope.js';
import { agreeOnRecord, checkDirectoryAcl, checksDirectoryAcl, createLockDirectory, createRecordedDirectory, type DirectoryRecord } from './lockDirectory.js';
import { ObstacleWait, type NodeDecision, type WaitResult, type WaitSink } from './ObstacleWait.js';
import { beginHolding, heldSeat, isSeatLost } from './holding.js';
import { assertLockNodeFits, OwnNodeWatch, type OwnNodeSink, type QueueNode, type QueueSeat } from './ownNode.js';

/** What one `LockQueue.enter` call asks for. */
export interface EnterOptions {
  /** Node-name kind written after the protection prefix, e.g. `lock-`, `read-`, `write-`. */
  kind: string;
  /** The ordering rule for this kind of contender. */
  rule: OrderingRule;
  /** Data stored in our node (visible to other participants). */
  data?: Uint8Array | null | undefined;
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
  /**
   * Called when someone asks the holder to release (Curator's revocation protocol: `__REVOKE__`
   * written to our node), while we hold; a request made while we waited is told at the grant.
   */
  onRevoke?: (() => void) | undefined;
  /**
   * Subscribes to outside changes that can change the rule's answer (e.g. a semaphore's shared
   * maximum was raised). The engine decides again when the listener is called. Returns unsubscribe.
   */
  onRecheck?: ((listener: () => void) => () => void) | undefined;
  /**
   * Work the recipe needs done before our node is created (a semaphore records its `maxLeases`).
   * It runs under this acquisition's deadline and signal, and is run again after a connection
   * loss like every other step: it must be idempotent.
   */
  prepare?: (() => Promise<void>) | undefined;
}

/** Our node, just created, and the listing sent behind its create. */
export interface Created {
  path: string;
  name: string;
  /** The node's czxid (its stat is not kept: a queued waiter should not hold eleven fields). */
  fencingToken: bigint;
  children: string[];
  /** See {@link QueueNode.ghostGuid}. */
  ghostGuid?: string | undefined;
  /** The directory's `czxid` from the listing behind the create, when that listing was used. */
  directoryCzxid?: bigint | undefined;
}

/**
 * The ZooKeeper work of one lock queue, as its contenders see it (docs/architecture.md, "The
 * lock-queue engine"): a {@link Contender} sequences these steps and does none of them itself.
 */
export interface QueueOps {
  /** The session the queue's nodes are made in. */
  readonly session: ZkSession;
  /** For error messages: `lock <path>`. */
  readonly what: string;
  /** A stop for one acquisition: its deadline, its caller's signal, the session's end. */
  stopFor(options: EnterOptions): StopSignal;
  /** Step 1: creates our node and lists the queue behind it (recovering a lost reply by GUID). */
  enqueue(options: EnterOptions, stop: StopSignal): Promise<Created>;
  /** Watches our node from its seating (see {@link OwnNodeWatch}) and registers it as ours. */
  seat(path: string, sink: OwnNodeSink, revocable: boolean): OwnNodeWatch;
  /** Our seat at `path` holds from now on; returns the holder's signal (see `beginHolding`). */
  hold(path: string, sessionSignal: AbortSignal, onRevoke: (() => void) | undefined): AbortSignal;
  /** Our seat `node` holds from now on, granted at `grantedAt`: its seat, whose signal is made on first use. */
  holdSeat(node: QueueNode, sessionSignal: AbortSignal, onRevoke: (() => void) | undefined, grantedAt: number): QueueSeat;
  /** Whether `name` in our directory is a node of this process (this session). */
  isLocal(name: string): boolean;
  /** Lists the queue once connected (shared with the other contenders asking now). */
  list(stop: StopSignal): Promise<string[]>;
  /** Our place in a listing, sorted by sequence. Throws if our node is not in it. */
  placeIn(children: string[], seat: QueueNode, stop: StopSignal): { queue: QueueEntry[]; ownIndex: number };
  /**
   * Step 3, one node: waits and reports to `sink` how the wait ended. Returns the wait, which a
   * newer listing may keep (see `ObstacleWait.keeps`), unless outside changes are followed too.
   */
  waitFor(decision: NodeDecision, recheck: Recheck | undefined, stop: StopSignal, sink: WaitSink, touchActedOn: number): ObstacleWait | undefined;
  /** Step 3, any of several nodes: the wait, not begun. */
  waitForAnyOf(stop: StopSignal, sink: AnyOfSink): AnyOfWait;
  /** Step 3, the children: a new listing (watch armed) or `'relist'`. */
  waitForChildren(children: string[], armed: WatchedListing | undefined, recheck: Recheck | undefined, stop: StopSignal): Promise<WatchedListing | 'relist'>;
  /** Touches our node, waking the successor that watches it (`nudgeSuccessor`). */
  nudge(seat: QueueNode, data: Uint8Array | null | undefined): void;
  /** Deletes our node and forgets it (see `LockQueue.leave`). */
  leave(seat: QueueNode): Promise<void>;
  /** Counts `work` among the queue's clean-ups (`settled()` waits for it): it may outlive its acquisition. */
  inBackground(work: Promise<void>): void;
}

/** {@link QueueOps} on one lock directory of one session. */
export class ZkQueueOps implements QueueOps {
  /** Background clean-ups of abandoned creates, so tests and shutdown can wait for them. */
  private readonly cleanups = new Set<Promise<void>>();
  /** The listing scheduled behind the creates issued in this tick, shared by all of them. */
  private scheduledListing: Promise<{ children: string[]; stat: Stat }> | undefined;
  /** The directory incarnation (`czxid`) whose record we checked; see {@link DirectoryRecord}. */
  private agreedIncarnation: bigint | undefined;
  /** The directory incarnation whose ACL we checked (docs/architecture.md, "The directory's ACL"). */
  private aclCheckedIncarnation: bigint | undefined;
  private readonly checksAcl: boolean;
  readonly session: ZkSession;
  readonly what: string;
  private readonly isConnected = (): boolean => this.session.isConnected;

  constructor(
    readonly scope: EngineScope,
    /** The lock directory; our nodes are its children. */
    readonly path: string,
    private readonly record: DirectoryRecord | undefined,
  ) {
    this.session = scope.session;
    this.what = `lock ${path}`;
    this.checksAcl = checksDirectoryAcl(this.session);
  }

  stopFor(options: EnterOptions): StopSignal {
    return new StopSignal({
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      sessionSignal: this.session.sessionSignal,
      isConnected: this.isConnected,
      what: this.what,
      fanOut: this.scope.fanOut,
    });
  }

  /** Resolves when every background clean-up started so far has finished. */
  async settled(): Promise<void> {
    while (this.cleanups.size > 0) await Promise.allSettled([...this.cleanups]);
  }

  inBackground(work: Promise<void>): void {
    this.cleanups.add(work);
    void work.finally(() => this.cleanups.delete(work));
  }

  seat(path: string, sink: OwnNodeSink, revocable: boolean): OwnNodeWatch {
    const own = new OwnNodeWatch(this.session, this.scope.suspensions, path, sink, revocable);
    this.scope.seats.set(path, { held: false, own });
    return own;
  }

  hold(path: string, sessionSignal: AbortSignal, onRevoke: (() => void) | undefined): AbortSignal {
    const state = this.scope.seats.get(path)!;
    return beginHolding(state, state.own!, this.scope.fanOut, sessionSignal, onRevoke).signal;
  }

  holdSeat(node: QueueNode, sessionSignal: AbortSignal, onRevoke: (() => void) | undefined, grantedAt: number): QueueSeat {
    const state = this.scope.seats.get(node.path)!;
    return heldSeat(node, beginHolding(state, state.own!, this.scope.fanOut, sessionSignal, onRevoke), grantedAt);
  }

  isLocal(name: string): boolean {
    return this.scope.seats.has(joinPath(this.path, name));
  }

  /**
   * Deletes our node. If the connection is down it keeps trying until it is back or the session
   * is gone (then the server deletes the ephemeral node itself). Never deletes a node of a later
   * session, and never throws for a node that is already gone. Any other refusal (NO_AUTH: an ACL
   * without DELETE for us) rejects, and a holder's seat stays as it was: the node is still there
   * and still ours, and a later call may try again (docs/errors.md, "Releasing").
   */
  async leave(seat: QueueNode): Promise<void> {
    const seats = this.scope.seats;
    const state = seats.get(seat.path);
    const own = state?.held === true ? state.own : undefined;
    // Our own delete must not read as someone else's. A holder's watch is set again if the server
    // refuses the delete, and its signal follows the session until it answers; a waiter just ends.
    if (own !== undefined) {
      own.leavingNow();
    } else {
      state?.endHolding?.();
      state?.own?.end();
    }
    try {
      await this.deleteSeat(seat);
    } catch (err) {
      if (own !== undefined) own.leaveRefused();
      else seats.delete(seat.path);
      throw err;
    }
    state?.endHolding?.();
    own?.end();
    seats.delete(seat.path);
    if (seat.ghostGuid !== undefined) void this.sweepGhosts(seat.ghostGuid, seat.generation);
  }

  /**
   * In the background: deletes the nodes carrying `guid` (an acquisition's late-applied create,
   * see {@link QueueNode.ghostGuid}) now, and once more a session timeout later, by which time a
   * request the old server still held has been applied or dropped. Such a node would otherwise
   * stand in the queue, ahead of later contenders, until our session ends.
   */
  private sweepGhosts(guid: string, generation: number): Promise<void> {
    const session = this.session;
    const sweep = async (): Promise<void> => {
      if (session.generation !== generation) return; // its nodes went with its session
      const children = await this.scope.nextListing(this.path);
      for (const name of this.scope.namesWithGuid(children, guid)) await this.deleteQuietly(joinPath(this.path, name), generation);
    };
    // NO_NODE (the directory went), a lost connection or session: nothing is left to sweep that
    // the session's end will not take.
    const quietly = (): Promise<void> => sweep().catch(() => undefined);
    const cleanup = quietly();
    this.inBackground(cleanup);
    // The second look is not awaited by settled(): it only waits out the old server.
    setTimeout(() => void quietly(), session.negotiatedSessionTimeoutMs).unref();
    return cleanup;
  }

  /**
   * The delete of {@link leave}. Like Curator's guaranteed delete it outlives the retry policy:
   * once the policy gives up it goes on a second apart, until the session answers or ends.
   */
  private async deleteSeat(seat: QueueNode): Promise<void> {
    const session = this.session;
    const startedAt = performance.now();
    let retries: RetryBudget | undefined; // made at the first failure: none on the common path
    for (;;) {
      if (isSeatLost(seat) || session.generation !== seat.generation) return;
      try {
        await session.delete(seat.path);
        return;
      } catch (err) {
        if (isZkError(err, 'NO_NODE') || isZkError(err, 'SESSION_LOST') || isZkError(err, 'SESSION_CLOSED')) return;
        if (!isZkError(err, 'CONNECTION_LOSS')) throw err;
        let delay: number;
        try {
          retries ??= this.retriesFrom(startedAt);
          delay = retries.delayAfter(err);
        } catch {
          delay = GUARANTEED_DELETE_PAUSE_MS;
        }
        await this.pauseThenReconnect(delay, seat.signal);
      }
    }
  }

  /**
   * Step 1: create our EPHEMERAL_SEQUENTIAL node and, pipelined right behind it on the same
   * session, list the directory: ZooKeeper answers in order, so the listing already contains our
   * node and an uncontended acquire costs one round trip.
   */
  async enqueue(options: EnterOptions, stop: StopSignal): Promise<Created> {
    const { guid, name: protectedName } = newProtectedName(options.kind);
    const requested = joinPath(this.path, protectedName);
    assertLockNodeFits(this.session, requested, this.scope.nodeData(options.data)); // before any directory is made
    if (options.prepare !== undefined) await this.untilAnswered(stop, options.prepare);
    // The session our creates go to: a clean-up never runs on a later one (its nodes went with it).
    const generation = this.session.generation;
    const created = await this.createOwnNode(requested, guid, generation, options, stop);
    try {
      await this.checkIncarnation(created, stop);
    } catch (err) {
      await this.giveUp(stop, guid, generation, Promise.resolve(created));
      throw err;
    }
    return created;
  }

  /**
   * What is checked once per incarnation of the directory (the listing's stat says which one our
   * node is in; our node keeps it alive), before the first decision: its ACL, then its record.
   */
  private async checkIncarnation(created: Created, stop: StopSignal): Promise<void> {
    const incarnation = created.directoryCzxid;
    const unchecked = (checked: bigint | undefined): boolean => incarnation === undefined || incarnation !== checked;
    try {
      if (this.checksAcl && unchecked(this.aclCheckedIncarnation)) {
        this.aclCheckedIncarnation = await this.untilAnswered(stop, () => checkDirectoryAcl(this.session, this.path, created.path));
      }
      const record = this.record;
      if (record !== undefined && unchecked(this.agreedIncarnation)) {
        this.agreedIncarnation = await this.untilAnswered(stop, () => agreeOnRecord(this.session, this.path, record));
      }
    } catch (err) {
      // Our node keeps the directory alive: NO_NODE means someone else deleted them meanwhile.
      if (isZkError(err, 'NO_NODE')) throw this.ownNodeDeleted({ name: created.name, path: created.path });
      throw err;
    }
  }

  /** The create loop of step 1: retries, recovers a lost reply by GUID, creates the directory. */
  private async createOwnNode(requested: string, guid: string, generation: number, options: EnterOptions, stop: StopSignal): Promise<Created> {
    const session = this.session;
    // An attempt whose reply was lost and whose node was not found may still be applied later.
    let ghostGuid: string | undefined;
    const startedAt = performance.now();
    let retries: RetryBudget | undefined; // made at the first failure: none on the common path
    for (;;) {
      stop.throwIfStopped();
      const create = session.create(requested, this.scope.nodeData(options.data), { mode: 'ephemeral_sequential' });
      const listing = this.listBehindCreates();
      let created: { path: string; stat: Stat };
      try {
        created = await stop.race(create);
      } catch (err) {
        if (stop.aborted) {
          await this.giveUp(stop, guid, generation, create);
          throw stop.reason;
        }
        if (isZkError(err, 'NO_NODE')) {
          await this.untilAnswered(stop, () => this.createDirectory());
          continue;
        }
        if (!isZkError(err, 'CONNECTION_LOSS')) throw err;
        // The reply was lost: the node may exist with nobody knowing its name. Find it by GUID.
        let recovered: Created | undefined;
        try {
          recovered = await this.recover(guid, stop);
        } catch (recoverErr) {
          await this.giveUp(stop, guid, generation, Promise.reject(err));
          throw recoverErr;
        }
        if (recovered !== undefined) return { ...recovered, ghostGuid };
        ghostGuid = guid;
        try {
          retries ??= this.retriesFrom(startedAt);
          await this.pauseBeforeRetry(retries, err, stop);
        } catch (gaveUp) {
          // The policy gave up: a create still held by the old server may yet be applied.
          await this.giveUp(stop, guid, generation, Promise.reject(err));
          throw gaveUp;
        }
        continue;
      }
      const name = created.path.slice(this.path.length + 1);
      try {
        const { children, stat } = await stop.race(listing);
        return { path: created.path, name, fencingToken: created.stat.czxid, children, ghostGuid, directoryCzxid: stat.czxid };
      } catch (err) {
        if (stop.aborted) {
          await this.giveUp(stop, guid, generation, Promise.resolve(created));
          throw err;
        }
        // The listing alone failed (connection loss between the two replies): list again.
        try {
          const children = await this.list(stop);
          return { path: created.path, name, fencingToken: created.stat.czxid, children, ghostGuid };
        } catch (listErr) {
          await this.giveUp(stop, guid, generation, Promise.resolve(created));
          throw listErr;
        }
      }
    }
  }

  /**
   * A listing sent after every create issued so far in this tick: ZooKeeper answers one session in
   * order, so it contains all of their nodes. Waiters enqueued together share one listing instead of
   * each listing a directory that grows with them.
   */
  private listBehindCreates(): Promise<{ children: string[]; stat: Stat }> {
    if (this.scheduledListing === undefined) {
      this.scheduledListing = Promise.resolve().then(() => {
        this.scheduledListing = undefined;
        return this.session.getChildren(this.path);
      });
      this.scheduledListing.catch(() => undefined); // handled by each waiter, or made moot by its create's failure
    }
    return this.scheduledListing;
  }

  /** The lock directory (a container) and its missing ancestors; with our record if we keep one. */
  private createDirectory(): Promise<void> {
    if (this.record !== undefined) return createRecordedDirectory(this.session, this.path, this.record);
    return createLockDirectory(this.session, this.path);
  }

  /**
   * After a create whose reply was lost: wait for the connection, look for our GUID among the
   * children, and adopt the node only if our current session owns it; delete any other.
   */
  private async recover(guid: string, stop: StopSignal): Promise<Created | undefined> {
    const session = this.session;
    let children: string[];
    try {
      children = await this.list(stop);
    } catch (err) {
      // No directory: our create cannot have made a node in it (a fresh lock path whose
      // directories were never created, or deleted since). Create again; NO_NODE then creates them.
      if (isZkError(err, 'NO_NODE')) return undefined;
      throw err;
    }
    const ours = this.scope.namesWithGuid(children, guid);
    let adopted: Created | undefined;
    for (const name of ours) {
      const path = joinPath(this.path, name);
      const stat = await this.untilAnswered(stop, () => session.exists(path));
      if (stat === null) continue;
      if (adopted === undefined && stat.ephemeralOwner === session.sessionIdBigInt) {
        adopted = { path, name, fencingToken: stat.czxid, children };
      } else {
        await stop.race(this.deleteQuietly(path));
      }
    }
    return adopted;
  }

  /**
   * Lists once connected, retrying connection losses. The listing is shared with every contender
   * of this session in this directory that asks in the same turn (see `EngineScope.nextListing`).
   */
  list(stop: StopSignal): Promise<string[]> {
    return this.untilAnswered(stop, () => this.scope.nextListing(this.path));
  }

  /**
   * Runs `step` once connected until the server answers it: a lost connection is the retry
   * policy's business, never the caller's (the acquisition ends at its deadline, its abort, the
   * session's end, or when the policy gives up). `step` must be safe to send again (a read, or a
   * write that tolerates it).
   */
  private async untilAnswered<T>(stop: StopSignal, step: () => Promise<T>): Promise<T> {
    const startedAt = performance.now();
    let retries: RetryBudget | undefined; // made at the first failure: none on the common path
    for (;;) {
      await this.whenConnected(stop);
      try {
        return await stop.race(step());
      } catch (err) {
        if (stop.aborted || !isZkError(err, 'CONNECTION_LOSS')) throw err;
        retries ??= this.retriesFrom(startedAt);
        await this.pauseBeforeRetry(retries, err, stop);
      }
    }
  }

  /** Our place in a listing, sorted by sequence. Throws if our node is not in it. */
  placeIn(children: string[], seat: QueueNode, stop: StopSignal): { queue: QueueEntry[]; ownIndex: number } {
    const { queue, indexOf } = this.scope.sortedQueueOf(children);
    const ownIndex = indexOf.get(seat.name) ?? -1;
    if (ownIndex < 0) {
      stop.throwIfStopped();
      throw this.ownNodeDeleted(seat);
    }
    return { queue, ownIndex };
  }

  /** The error of an acquisition whose node someone else deleted (an operator, a tool). */
  private ownNodeDeleted(seat: Pick<QueueNode, 'name' | 'path'>): NodeDeletedError {
    return new NodeDeletedError(`lock ${this.path}: our queue node ${seat.name} was deleted by someone else`, {
      op: 'getChildren',
      path: seat.path,
    });
  }

  /**
   * Waits for the node `decision` names and reports to `sink` how it ended (see
   * {@link ObstacleWait}). On the common path that is one wait object and no promise.
   */
  waitFor(decision: NodeDecision, recheck: Recheck | undefined, stop: StopSignal, sink: WaitSink, touchActedOn: number): ObstacleWait | undefined {
    if (recheck === undefined) {
      const wait = this.obstacleWait(decision, stop, sink, touchActedOn);
      wait.begin();
      return wait;
    }
    this.waitOrRecheck(decision, recheck, stop, sink, touchActedOn).then(
      (next) => sink.waited(next),
      (err: unknown) => sink.waitFailed(err),
    );
    return undefined;
  }

  private obstacleWait(decision: NodeDecision, stop: StopSignal, sink: WaitSink, touchActedOn: number): ObstacleWait {
    const path = joinPath(this.path, decision.waitFor);
    const shortcut = decision.lastObstacleIfHeld === true || decision.decideBehindIfHeld === true;
    const predecessor = shortcut ? this.scope.seats.get(path) : undefined;
    return new ObstacleWait(this.scope, path, stop, decision, predecessor, sink, touchActedOn);
  }

  /** The node wait of a recipe with outside changes: ends early ('relist') when one is signalled. */
  private async waitOrRecheck(decision: NodeDecision, recheck: Recheck, stop: StopSignal, caller: WaitSink, touchActedOn: number): Promise<WaitResult> {
    let sink!: WaitSink;
    const outcome = new Promise<WaitResult>((resolve, reject) => (sink = { waited: resolve, waitFailed: reject, touchFound: caller.touchFound?.bind(caller) }));
    outcome.catch(() => undefined); // we may return before it settles (and then cancel the wait)
    const wait = this.obstacleWait(decision, stop, sink, touchActedOn);
    wait.begin();
    try {
      return await Promise.race([outcome, recheck.next().then(() => 'relist' as const)]);
    } finally {
      wait.cancel();
    }
  }

  waitForAnyOf(stop: StopSignal, sink: AnyOfSink): AnyOfWait {
    return new AnyOfWait(this.session, this.scope.suspensions, this.path, stop, sink);
  }

  waitForChildren(children: string[], armed: WatchedListing | undefined, recheck: Recheck | undefined, stop: StopSignal): Promise<WatchedListing | 'relist'> {
    return waitForChildrenChange(this.session, this.path, children, armed, recheck, stop);
  }

  /**
   * Touches our node so a successor watching it wakes up and decides again. The successor has no
   * other way to learn it may go on while we hold (it watches our node, which stays), so a nudge
   * lost with the connection is sent again once connected, for as long as our session lasts; one
   * whose answer alone was lost then touches the node twice (the successor lists once more).
   */
  nudge(seat: QueueNode, data: Uint8Array | null | undefined): void {
    const session = this.session;
    const send = (): void => {
      session.setData(seat.path, this.scope.nodeData(data)).catch((err: unknown) => {
        if (!isZkError(err, 'CONNECTION_LOSS')) return; // NO_NODE: we left, and the successor saw it
        session.waitForConnected(session.sessionSignal).then(
          () => {
            if (session.generation === seat.generation) send();
          },
          () => undefined, // the session ended: our node, and the reason to nudge, went with it
        );
      });
    };
    send();
  }

  /**
   * Deletes the node of an acquisition given up mid-create. While the session stays connected we
   * wait for that (a round trip or two), so a rejected acquire has left nothing behind; if the
   * connection drops meanwhile, or past a deadline or an abort the slack runs out (a stalled
   * server: docs/architecture.md, "Deadlines"), the clean-up finishes in the background.
   */
  private async giveUp(stop: StopSignal, guid: string, generation: number, create: Promise<{ path: string }>): Promise<void> {
    const cleanup = this.abandon(guid, generation, create);
    const session = this.session;
    if (session.state !== 'connected' && session.state !== 'reconnected') return;
    let done!: () => void;
    const disconnected = new Promise<void>((resolve) => (done = resolve));
    session.on('suspended', done);
    session.on('lost', done);
    session.on('closed', done);
    try {
      await stop.settleWithin(Promise.race([cleanup, disconnected]));
    } finally {
      session.off('suspended', done);
      session.off('lost', done);
      session.off('closed', done);
    }
  }

  /** Deletes, in the background, a node whose acquisition was given up mid-create. */
  private abandon(guid: string, generation: number, create: Promise<{ path: string }>): Promise<void> {
    create.catch(() => undefined);
    const cleanup = (async () => {
      try {
        const { path } = await create;
        await this.deleteQuietly(path, generation);
      } catch (err) {
        if (!isZkError(err, 'CONNECTION_LOSS')) return; // not created, or the session is gone
        // The create went to session `generation`: if that session is gone, so is any node it made,
        // and a listing on its successor would be work for nothing (thousands of them after a loss
        // with creates in flight).
        if (this.session.generation !== generation) return;
        try {
          await this.session.waitForConnected(this.session.sessionSignal);
          // Now, and once more a session timeout later: the server we lost may still apply it
          // (a stalled one does, when it resumes).
          await this.sweepGhosts(guid, generation);
        } catch {
          // Session lost meanwhile: its ephemeral nodes go with it.
        }
      }
    })();
    this.inBackground(cleanup);
    return cleanup;
  }

  private async deleteQuietly(path: string, generation = this.session.generation): Promise<void> {
    try {
      await this.leave({ path, name: '', fencingToken: 0n, generation, signal: this.session.sessionSignal });
    } catch {
      // Not ours to delete after all (e.g. NO_AUTH): nothing more we can do.
    }
  }

  /** Resolves once connected (at once if we are: no AbortSignal made on the hot path). */
  private whenConnected(stop: StopSignal): Promise<void> | undefined {
    if (this.session.isConnected) return undefined;
    return stop.race(this.session.waitForConnected(stop.signal));
  }

  /** The retries of one step under the session's policy, counted from `startedAt`. */
  private retriesFrom(startedAt: number): RetryBudget {
    return new RetryBudget(this.session.retryPolicy, this.what, { startedAt });
  }

  /**
   * Pauses before retrying a step as the session's retry policy says (docs/architecture.md,
   * "Retries"), then waits to be connected; the stop ends the pause at once.
   * @throws RetriesExhaustedError (`RETRIES_EXHAUSTED`) when the policy gives up
   */
  private async pauseBeforeRetry(retries: RetryBudget, err: unknown, stop: StopSignal): Promise<void> {
    await this.pauseThenReconnect(retries.delayAfter(err), stop.signal);
  }

  /** Waits `delayMs` (a timer's range), then until connected; `signal` ends both at once. */
  private async pauseThenReconnect(delayMs: number, signal: AbortSignal): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, delayMs);
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
    await this.session.waitForConnected(signal).catch(() => undefined);
  }
}

/** The pause of a release's delete once the retry policy has given up (see `deleteSeat`). */
const GUARANTEED_DELETE_PAUSE_MS = 1000;
