import {
  AbortedError,
  isZkError,
  joinPath,
  newProtectedName,
  SessionLostError,
  withoutProtection,
  type QueueSeat,
  type ZkSession,
} from '@zk-recipes/core';

/** What a downgrade needs to know about the write lock it keeps the place of. */
export interface DowngradeRequest {
  session: ZkSession;
  /** The lock directory. */
  dir: string;
  /** The calling context's write-lock seat. */
  writeSeat: QueueSeat;
  writeKind: string;
  readKind: string;
  data: Uint8Array | null;
  signal?: AbortSignal | undefined;
  /** For error messages. */
  what: string;
}

/**
 * Grants the read lock to the holder of the write lock, at once, at the write lock's place.
 *
 * It creates an EPHEMERAL (not sequential) read node whose name ends with the write node's own
 * sequence, e.g. `_c_<uuid>-read-0000000005` next to `_c_<uuid'>-write-0000000005`. The queue sorts
 * by sequence, so the read node stands exactly where the write node stands: when the write lock is
 * released (its node deleted) a writer queued behind still finds a node ahead of it and keeps
 * waiting, while readers queued behind the write node (and ahead of the next writer) get in and
 * share the lock with the downgraded holder. This is the CURATOR-621 sequence done right.
 *
 * The read node is created while the write node still exists, so the place is never empty, and
 * the write node is touched right after, to wake writers waiting on it (see `rules.ts`).
 */
export async function createDowngradeSeat(request: DowngradeRequest): Promise<QueueSeat> {
  const { session, dir, writeSeat } = request;
  const sequenceSuffix = withoutProtection(writeSeat.name).slice(request.writeKind.length);
  const path = joinPath(dir, newProtectedName(request.readKind).name + sequenceSuffix);
  for (;;) {
    throwIfCannotProceed(request);
    // Pipelined: the create, then a touch of the write node. A writer waiting on the write node
    // wakes up at the touch and lists again, so it sees the read node before the write node goes
    // (rules.ts explains why that keeps its no-listing shortcut safe).
    const create = session.create(path, request.data, { mode: 'ephemeral' });
    const touch = session.setData(writeSeat.path, request.data ?? new Uint8Array(0));
    touch.catch(() => undefined); // judged below, after the create's outcome
    let seat: QueueSeat;
    try {
      seat = seatOf(path, (await create).stat.czxid, writeSeat);
    } catch (err) {
      if (isZkError(err, 'NODE_EXISTS')) {
        // Our earlier attempt's reply was lost but the create went through: adopt it if it is ours.
        const stat = await session.exists(path);
        if (stat === null || stat.ephemeralOwner !== session.sessionIdBigInt || session.generation !== writeSeat.generation) throw err;
        seat = seatOf(path, stat.czxid, writeSeat);
      } else if (isZkError(err, 'CONNECTION_LOSS')) {
        await session.waitForConnected(writeSeat.signal).catch(() => undefined);
        continue;
      } else {
        throw err;
      }
    }
    try {
      await touch;
      return seat;
    } catch (err) {
      // The write node is already gone (its handle was released meanwhile): nobody waits on it.
      if (isZkError(err, 'NO_NODE')) return seat;
      if (!isZkError(err, 'CONNECTION_LOSS')) {
        await session.delete(seat.path).catch(() => undefined);
        throw err;
      }
      await session.waitForConnected(writeSeat.signal).catch(() => undefined);
      // Loop: the create answers NODE_EXISTS and is adopted; the touch is sent again.
    }
  }
}

function throwIfCannotProceed(request: DowngradeRequest): void {
  const { session, writeSeat, what, signal } = request;
  if (signal?.aborted === true) throw new AbortedError(`${what}: aborted`, { cause: signal.reason });
  if (writeSeat.signal.aborted || session.generation !== writeSeat.generation) {
    throw new SessionLostError(`${what}: the write lock was lost with its ZooKeeper session`, { cause: writeSeat.signal.reason });
  }
}

function seatOf(path: string, czxid: bigint, writeSeat: QueueSeat): QueueSeat {
  return {
    path,
    name: path.slice(path.lastIndexOf('/') + 1),
    fencingToken: czxid,
    generation: writeSeat.generation,
    signal: writeSeat.signal,
  };
}
