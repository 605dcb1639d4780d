import { isZkError, NodeDeletedError } from '../errors.js';
import { joinPath, newProtectedName, type ProtectedName } from '../nodes/index.js';
import type { RetryBudget } from '../retry/RetryBudget.js';
import type { CreateResult, Stat } from '../session/types.js';
import type { ZkSession } from '../session/ZkSession.js';
import type { StopSignal } from '../signals/StopSignal.js';
import type { Listing, ListingWindow } from './DirectoryListings.js';
import type { EngineScope } from './EngineScope.js';
import { agreeOnRecord, checkDirectoryAcl, checksDirectoryAcl, createLockDirectory, createRecordedDirectory, type DirectoryRecord } from './lockDirectory.js';
import { assertLockNodeFits } from './lockNodeSize.js';
import type { QueueNode } from './ownNode.js';
import type { Created, EnterOptions } from './QueueOps.js';
import type { QueueLeaving } from './QueueLeaving.js';
import type { StepRetries } from './StepRetries.js';

/** The error of an acquisition whose node someone else deleted (an operator, a tool). */
export function ownNodeDeleted(dir: string, seat: Pick<QueueNode, 'name' | 'path'>): NodeDeletedError {
  return new NodeDeletedError(`lock ${dir}: our queue node ${seat.name} was deleted by someone else`, { op: 'getChildren', path: seat.path });
}

/**
 * Step 1 of the walk for one lock directory (docs/architecture.md, "The lock-queue engine"): our
 * EPHEMERAL_SEQUENTIAL node, created with the listing pipelined behind it, a lost reply recovered
 * by the node's GUID, the directory created and each incarnation of it checked, and what was begun
 * cleaned up when the acquisition is given up.
 */
export class NodeCreation {
  private readonly session: ZkSession;
  /** The directory incarnation (`czxid`) whose record we checked; see {@link DirectoryRecord}. */
  private agreedIncarnation: bigint | undefined;
  /** The directory incarnation whose ACL we checked (docs/architecture.md, "The directory's ACL"). */
  private aclCheckedIncarnation: bigint | undefined;
  private readonly checksAcl: boolean;

  constructor(
    private readonly scope: EngineScope,
    /** The lock directory; our nodes are its children. */
    private readonly path: string,
    private readonly record: DirectoryRecord | undefined,
    private readonly retries: StepRetries,
    private readonly leaving: QueueLeaving,
    /** Counts a clean-up begun in the background (the queue's `settled()` waits for it). */
    private readonly inBackground: (work: Promise<void>) => void,
  ) {
    this.session = scope.session;
    this.checksAcl = checksDirectoryAcl(this.session);
  }

  /**
   * Creates our EPHEMERAL_SEQUENTIAL node and, pipelined right behind it on the same session,
   * lists the directory: ZooKeeper answers in order, so the listing already contains our node and
   * an uncontended acquire costs one round trip.
   */
  enqueue(options: EnterOptions, stop: StopSignal): Promise<Created> {
    let protectedName: ProtectedName;
    let requested: string;
    try {
      protectedName = newProtectedName(options.kind);
      requested = joinPath(this.path, protectedName.name);
      assertLockNodeFits(this.session, requested, this.scope.nodeData(options.data)); // before any directory is made
    } catch (err) {
      return Promise.reject(err);
    }
    // The session our creates go to: a clean-up never runs on a later one (its nodes went with it).
    const generation = this.session.generation;
    if (options.prepare !== undefined || stop.aborted) return this.enqueueSlowly(requested, protectedName, generation, options, stop);
    return this.firstAttempt(requested, protectedName, generation, options, stop);
  }

  /** {@link enqueue} with a `prepare` step, or already stopped: the create loop from the start. */
  private async enqueueSlowly(requested: string, protectedName: ProtectedName, generation: number, options: EnterOptions, stop: StopSignal): Promise<Created> {
    if (options.prepare !== undefined) await this.retries.untilAnswered(stop, options.prepare);
    return this.checked(await this.createOwnNode(requested, protectedName, generation, options, stop), protectedName, generation, stop);
  }

  /**
   * The create and its listing, sent now, with one continuation for both: the common case (an
   * answer to each) costs no async frame. Anything else goes on in the create loop, which starts
   * from this attempt's outcome.
   */
  private firstAttempt(requested: string, protectedName: ProtectedName, generation: number, options: EnterOptions, stop: StopSignal): Promise<Created> {
    const startedAt = performance.now();
    const create = this.session.create(requested, this.scope.nodeData(options.data), { mode: 'ephemeral_sequential' });
    // Behind every create of this session in this directory issued in this run (see createOwnNode).
    const listing = this.scope.listings.after(this.path, 'run');
    // ZooKeeper answers one session in order: the create is answered, and this noted, before the
    // listing is (its reaction is queued first), so the listing's continuation below finds it.
    let answer: { created: CreateResult } | { error: unknown } | undefined;
    create.then(
      (created) => (answer = { created }),
      (error: unknown) => (answer = { error }),
    );
    return stop.race(listing).then(
      ({ children, stat }) => {
        if (answer === undefined || 'error' in answer) return this.createOwnNode(requested, protectedName, generation, options, stop, create, startedAt).then((made) => this.checked(made, protectedName, generation, stop));
        const { created } = answer;
        const made: Created = { path: created.path, name: created.path.slice(this.path.length + 1), fencingToken: created.stat.czxid, children, ghostGuid: undefined, directoryCzxid: stat.czxid };
        return this.checked(made, protectedName, generation, stop);
      },
      (err: unknown) => {
        if (stop.aborted) {
          return this.giveUp(stop, protectedName, generation, create).then(() => {
            throw stop.reason;
          });
        }
        if (answer === undefined || 'error' in answer) return this.createOwnNode(requested, protectedName, generation, options, stop, create, startedAt).then((made) => this.checked(made, protectedName, generation, stop));
        // The listing alone failed (connection loss between the two replies): list again.
        const { created } = answer;
        return this.listAgain(created, protectedName, generation, stop, undefined).then((made) => this.checked(made, protectedName, generation, stop));
      },
    );
  }

  /** `created`, once what is checked per directory incarnation is (see {@link checkIncarnation}); nothing to wait for on the common path. */
  private checked(created: Created, protectedName: ProtectedName, generation: number, stop: StopSignal): Created | Promise<Created> {
    if (!this.incarnationUnchecked(created)) return created;
    return this.checkIncarnation(created, stop).then(
      () => created,
      (err: unknown) => this.giveUp(stop, protectedName, generation, Promise.resolve(created)).then(() => {
        throw err;
      }),
    );
  }

  /** Whether {@link checkIncarnation} has anything to check for the incarnation `created` is in. */
  private incarnationUnchecked(created: Created): boolean {
    const incarnation = created.directoryCzxid;
    const unchecked = (checked: bigint | undefined): boolean => incarnation === undefined || incarnation !== checked;
    return (this.checksAcl && unchecked(this.aclCheckedIncarnation)) || (this.record !== undefined && unchecked(this.agreedIncarnation));
  }

  /**
   * Lists once connected, retrying connection losses. The listing is shared with every contender
   * of this session in this directory that asks in the same turn (see `EngineScope.nextListing`).
   */
  list(stop: StopSignal, window?: ListingWindow): Promise<string[]> {
    return this.retries.untilAnswered(stop, () => this.scope.nextListing(this.path, window));
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
        this.aclCheckedIncarnation = await this.retries.untilAnswered(stop, () => checkDirectoryAcl(this.session, this.path, created.path));
      }
      const record = this.record;
      if (record !== undefined && unchecked(this.agreedIncarnation)) {
        this.agreedIncarnation = await this.retries.untilAnswered(stop, () => agreeOnRecord(this.session, this.path, record));
      }
    } catch (err) {
      // Our node keeps the directory alive: NO_NODE means someone else deleted them meanwhile.
      if (isZkError(err, 'NO_NODE')) throw ownNodeDeleted(this.path, { name: created.name, path: created.path });
      throw err;
    }
  }

  /**
   * The create loop: retries, recovers a lost reply by GUID, creates the directory.
   * @param sent a create already sent (the first attempt's): its outcome is where the loop begins
   * @param startedAt when the acquisition's first create was sent (the retry policy counts from it)
   */
  private async createOwnNode(requested: string, protectedName: ProtectedName, generation: number, options: EnterOptions, stop: StopSignal, sent?: Promise<CreateResult>, startedAt = performance.now()): Promise<Created> {
    const session = this.session;
    // An attempt whose reply was lost and whose node was not found may still be applied later.
    let ghostGuid: string | undefined;
    let retries: RetryBudget | undefined; // made at the first failure: none on the common path
    let resent = sent;
    for (;;) {
      let create: Promise<CreateResult>;
      let listing: Promise<Listing> | undefined;
      if (resent !== undefined) {
        // The first attempt's create; its listing is not needed (this loop lists again below).
        create = resent;
        resent = undefined;
      } else {
        stop.throwIfStopped();
        create = session.create(requested, this.scope.nodeData(options.data), { mode: 'ephemeral_sequential' });
        // Behind every create of this session in this directory issued in this run (or, while a
        // listing of it is in flight, since it was sent): ZooKeeper answers one session in order, so
        // it contains all of their nodes (docs/architecture.md, "Bounded recovery").
        listing = this.scope.listings.after(this.path, 'run');
      }
      let created: { path: string; stat: Stat };
      try {
        created = await stop.race(create);
      } catch (err) {
        if (stop.aborted) {
          await this.giveUp(stop, protectedName, generation, create);
          throw stop.reason;
        }
        if (isZkError(err, 'NO_NODE')) {
          await this.retries.untilAnswered(stop, () => this.createDirectory());
          continue;
        }
        if (!isZkError(err, 'CONNECTION_LOSS')) throw err;
        // The reply was lost: the node may exist with nobody knowing its name. Find it by GUID.
        let recovered: Created | undefined;
        try {
          recovered = await this.recover(protectedName, stop);
        } catch (recoverErr) {
          await this.giveUp(stop, protectedName, generation, Promise.reject(err));
          throw recoverErr;
        }
        if (recovered !== undefined) return { ...recovered, ghostGuid };
        ghostGuid = protectedName.guid;
        try {
          retries ??= this.retries.from(startedAt);
          await this.retries.pauseBeforeRetry(retries, err, stop);
        } catch (gaveUp) {
          // The policy gave up: a create still held by the old server may yet be applied.
          await this.giveUp(stop, protectedName, generation, Promise.reject(err));
          throw gaveUp;
        }
        continue;
      }
      if (listing === undefined) return this.listAgain(created, protectedName, generation, stop, ghostGuid);
      try {
        const { children, stat } = await stop.race(listing);
        return { path: created.path, name: created.path.slice(this.path.length + 1), fencingToken: created.stat.czxid, children, ghostGuid, directoryCzxid: stat.czxid };
      } catch (err) {
        if (stop.aborted) {
          await this.giveUp(stop, protectedName, generation, Promise.resolve(created));
          throw err;
        }
        // The listing alone failed (connection loss between the two replies): list again.
        return this.listAgain(created, protectedName, generation, stop, ghostGuid);
      }
    }
  }

  /** Our node is made; its listing is to be made again (lost with the connection, or not sent). */
  private async listAgain(created: CreateResult, protectedName: ProtectedName, generation: number, stop: StopSignal, ghostGuid: string | undefined): Promise<Created> {
    try {
      const children = await this.list(stop);
      return { path: created.path, name: created.path.slice(this.path.length + 1), fencingToken: created.stat.czxid, children, ghostGuid };
    } catch (listErr) {
      await this.giveUp(stop, protectedName, generation, Promise.resolve(created));
      throw listErr;
    }
  }

  /** The lock directory (a container) and its missing ancestors; with our record if we keep one. */
  private createDirectory(): Promise<void> {
    if (this.record !== undefined) return createRecordedDirectory(this.session, this.path, this.record);
    return createLockDirectory(this.session, this.path);
  }

  /**
   * After a create whose reply was lost: wait for the connection, look among the children for the
   * nodes our creates of `protectedName` made (its GUID and its kind), and adopt one only if our
   * current session owns it; delete any other.
   */
  private async recover(protectedName: ProtectedName, stop: StopSignal): Promise<Created | undefined> {
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
    const ours = this.scope.namesCreatedAs(children, protectedName.name);
    let adopted: Created | undefined;
    for (const name of ours) {
      const path = joinPath(this.path, name);
      const stat = await this.retries.untilAnswered(stop, () => session.exists(path));
      if (stat === null) continue;
      if (adopted === undefined && stat.ephemeralOwner === session.sessionIdBigInt) {
        adopted = { path, name, fencingToken: stat.czxid, children };
      } else {
        await stop.race(this.leaving.deleteQuietly(path));
      }
    }
    return adopted;
  }

  /**
   * Deletes the node of an acquisition given up mid-create. While the session stays connected we
   * wait for that (a round trip or two), so a rejected acquire has left nothing behind; if the
   * connection drops meanwhile, or past a deadline or an abort the slack runs out (a stalled
   * server: docs/architecture.md, "Deadlines"), the clean-up finishes in the background.
   */
  private async giveUp(stop: StopSignal, protectedName: ProtectedName, generation: number, create: Promise<{ path: string }>): Promise<void> {
    const cleanup = this.abandon(protectedName, generation, create);
    const session = this.session;
    if (session.state !== 'connected' && session.state !== 'reconnected') return;
    // Through the scope's listener sets, not one session listener each: a burst given up in one
    // blip would make removing them quadratic.
    let unsuspend: (() => void) | undefined;
    let unfollow: (() => void) | undefined;
    const disconnected = new Promise<void>((resolve) => {
      unsuspend = this.scope.suspensions.onSuspended(resolve);
      unfollow = this.scope.fanOut.onAbort(session.sessionSignal, resolve); // lost or closed
    });
    try {
      await stop.settleWithin(Promise.race([cleanup, disconnected]));
    } finally {
      unsuspend?.();
      unfollow?.();
    }
  }

  /** Deletes, in the background, a node whose acquisition was given up mid-create. */
  private abandon(protectedName: ProtectedName, generation: number, create: Promise<{ path: string }>): Promise<void> {
    create.catch(() => undefined);
    const cleanup = (async () => {
      try {
        const { path } = await create;
        await this.leaving.deleteQuietly(path, generation);
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
          this.leaving.sweepFor(protectedName.name, generation);
        } catch {
          // Session lost meanwhile: its ephemeral nodes go with it.
        }
      }
    })();
    this.inBackground(cleanup);
    return cleanup;
  }
}
