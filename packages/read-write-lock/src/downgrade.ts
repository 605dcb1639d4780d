import { AbortedError, isZkError, NodeDeletedError, SessionClosedError, SessionLostError } from '@zk-recipes/core';
import { abortableSleep, joinPath, RetryBudget, type LockQueue, type QueueSeat, type StopSignal } from '@zk-recipes/core/recipe-kit';
import { downgradeNameOf } from './downgradeName.js';
import type { ReadWriteNaming } from './naming.js';

/** What a downgrade needs to know about the write lock it keeps the place of. */
export interface DowngradeRequest {
  /** The lock's queue (its directory and session). */
  queue: LockQueue;
  /** The calling context's write-lock seat. */
  writeSeat: QueueSeat;
  naming: ReadWriteNaming;
  /** The lock's `data` option (`null`: the node names its owner, see `LockQueue.nodeData`). */
  data: Uint8Array | null;
  signal?: AbortSignal | undefined;
  /** The acquisition's deadline: a downgrade takes one round trip, but a stalled server gets no longer than it. */
  timeoutMs?: number | undefined;
  /** For error messages. */
  what: string;
}

/** A request with the stop that ends its waits: the caller's signal, its deadline, the session's end. */
interface Downgrade extends DowngradeRequest {
  stop: StopSignal;
}

/**
 * Grants the read lock to the holder of the write lock, at once, at the write lock's place.
 *
 * It creates an EPHEMERAL (not sequential) read node named like the write node with the read kind
 * (`downgradeNameOf`), e.g. `_c_<uuid>-read-0000000005` next to `_c_<uuid>-write-0000000005`. The
 * queue sorts by sequence, so the read node stands exactly where the write node stands: when the
 * write lock is released (its node deleted) a writer queued behind still finds a node ahead of it
 * and keeps waiting, while readers queued behind the write node (and ahead of the next writer) get
 * in and share the lock with the downgraded holder. This is the CURATOR-621 sequence done right.
 *
 * The read node is created, in one transaction with a check that the write node still exists, so
 * the place is never empty and never one that someone else vacated. Writers
 * waiting on the write node watch for this name's creation (see `rules.ts`); waiters of this
 * process are kept from a local hand-over when the write node goes.
 */
export async function createDowngradeSeat(request: DowngradeRequest): Promise<QueueSeat> {
  const { queue, writeSeat } = request;
  const { session, path: dir } = queue;
  const name = downgradeNameOf(writeSeat.name, request.naming);
  if (name === null) throw new Error(`${request.what}: ${writeSeat.name} is not a write node of this lock`); // cannot happen: we named it
  const path = joinPath(dir, name);
  queue.keepPlace(writeSeat.path);
  // Its deadline and abort hold whatever the server does (docs/architecture.md, "Deadlines"): a
  // try (timeoutMs 0) still gets its one round trip, for no longer than the slack.
  const stop = queue.stopFor({ signal: request.signal, timeoutMs: request.timeoutMs, what: request.what });
  const downgrade: Downgrade = { ...request, stop };
  let mayExist = false; // an attempt whose reply was lost may have created the read node
  const retries = new RetryBudget(session.retryPolicy, request.what);
  try {
    for (;;) {
      throwIfCannotProceed(downgrade);
      try {
        // Atomic with the write node's existence: had someone else deleted it (the holder not told
        // yet), a writer behind may hold the lock already, and a read node at the vanished place
        // would be granted beside it. The multi's create carries no stat: read the token after.
        await stop.race(
          session.transaction([
            { type: 'check', path: writeSeat.path, version: -1 },
            { type: 'create', path, data: queue.nodeData(request.data), mode: 'ephemeral' },
          ]),
        );
        mayExist = true;
        const stat = await untilAnswered(downgrade, () => session.exists(path));
        if (stat === null) throw nodeGone(request, path);
        return adoptIfAlive(downgrade, path, stat.czxid);
      } catch (err) {
        if (stop.aborted) {
          mayExist = true; // the transaction may still be applied
          throw err;
        }
        if (isZkError(err, 'NO_NODE') && err.path === writeSeat.path) throw nodeGone(request, writeSeat.path);
        if (isZkError(err, 'NODE_EXISTS')) {
          // Our earlier attempt's reply was lost but the create went through: adopt it if it is ours.
          const stat = await untilAnswered(downgrade, () => session.exists(path));
          if (stat === null || stat.ephemeralOwner !== session.sessionIdBigInt || session.generation !== writeSeat.generation) throw err;
          return adoptIfAlive(downgrade, path, stat.czxid);
        }
        if (!isZkError(err, 'CONNECTION_LOSS')) throw err;
        mayExist = true;
        await pauseBeforeRetry(downgrade, retries, err);
      }
    }
  } catch (err) {
    // Giving up: a read node we may have created stands at the writer's place and would hold up
    // every later writer until our session ends. Delete it if it is there and ours (waited for
    // no longer than the slack past a deadline or an abort; it goes on in the background).
    if (mayExist) await stop.settleWithin(deleteIfOurs(request, path));
    throw err;
  } finally {
    stop.dispose();
  }
}

/**
 * Runs a read until the server answers: a lost connection is waited out (same session), never
 * reported. Ends only as the downgrade may: abort, the write lock's loss, the session's end, or
 * the session's retry policy giving up.
 */
async function untilAnswered<T>(request: Downgrade, read: () => Promise<T>): Promise<T> {
  const retries = new RetryBudget(request.queue.session.retryPolicy, request.what);
  for (;;) {
    throwIfCannotProceed(request);
    try {
      return await request.stop.race(read());
    } catch (err) {
      if (!isZkError(err, 'CONNECTION_LOSS')) throw err;
      await pauseBeforeRetry(request, retries, err);
    }
  }
}

/**
 * The pause the session's retry policy asks for after `err` (the engine's, see
 * docs/architecture.md, "Retries"), then a wait until connected again (same session). An abort or
 * the write lock's loss ends it at once; the next attempt's check reports it.
 * @throws RetriesExhaustedError (`RETRIES_EXHAUSTED`) when the policy gives up
 */
async function pauseBeforeRetry(request: Downgrade, retries: RetryBudget, err: unknown): Promise<void> {
  const { queue, writeSeat, stop } = request;
  const delayMs = retries.delayAfter(err);
  const ended = AbortSignal.any([writeSeat.signal, stop.signal]);
  await abortableSleep(delayMs, ended).catch(() => undefined);
  await queue.session.waitForConnected(ended).catch(() => undefined);
}

/** Grants the read node, unless the session may have expired meanwhile (as every grant checks). */
function adoptIfAlive(request: Downgrade, path: string, czxid: bigint): QueueSeat {
  const { queue, writeSeat } = request;
  const grantedAt = queue.session.aliveAt(writeSeat.generation);
  if (grantedAt === undefined) {
    throwIfCannotProceed(request);
    throw new SessionLostError(`${request.what}: the ZooKeeper session was lost`);
  }
  return queue.adopt(path, czxid, writeSeat.generation, grantedAt);
}

async function deleteIfOurs(request: DowngradeRequest, path: string): Promise<void> {
  const { session } = request.queue;
  if (session.generation !== request.writeSeat.generation) return; // gone with its session
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const stat = await session.exists(path);
      if (stat !== null && stat.ephemeralOwner === session.sessionIdBigInt) await session.delete(path, stat.version);
      return;
    } catch (err) {
      // A lost connection: again once it is back (same session). Anything else (the session went,
      // and its nodes with it; someone changed the node): nothing more to do.
      if (!isZkError(err, 'CONNECTION_LOSS')) return;
      await session.waitForConnected(session.sessionSignal).catch(() => undefined);
      if (session.generation !== request.writeSeat.generation) return;
    }
  }
}

function nodeGone(request: DowngradeRequest, path: string): NodeDeletedError {
  return new NodeDeletedError(`${request.what}: ${path} was deleted by someone else: the write lock is not ours`, { op: 'downgrade', path });
}

function throwIfCannotProceed(request: Downgrade): void {
  const { queue, writeSeat, what, signal, stop } = request;
  const session = queue.session;
  if (signal?.aborted === true) throw new AbortedError(`${what}: aborted`, { cause: signal.reason });
  if (isZkError(stop.reason, 'LOCK_TIMEOUT')) throw stop.reason;
  if (isZkError(writeSeat.signal.reason, 'NODE_DELETED')) throw writeSeat.signal.reason;
  if (isZkError(writeSeat.signal.reason, 'SESSION_CLOSED')) {
    throw new SessionClosedError(`${what}: the ZkSession was closed`, { cause: writeSeat.signal.reason });
  }
  if (writeSeat.signal.aborted || session.generation !== writeSeat.generation) {
    throw new SessionLostError(`${what}: the write lock was lost with its ZooKeeper session`, { cause: writeSeat.signal.reason });
  }
}
