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
 * The read node is created while the write node still exists, so the place is never empty.
 */
export async function createDowngradeSeat(request: DowngradeRequest): Promise<QueueSeat> {
  const { session, dir, writeSeat, what } = request;
  const sequenceSuffix = withoutProtection(writeSeat.name).slice(request.writeKind.length);
  const path = joinPath(dir, newProtectedName(request.readKind).name + sequenceSuffix);
  for (;;) {
    if (request.signal?.aborted === true) throw new AbortedError(`${what}: aborted`, { cause: request.signal.reason });
    if (writeSeat.signal.aborted || session.generation !== writeSeat.generation) {
      throw new SessionLostError(`${what}: the write lock was lost with its ZooKeeper session`, { cause: writeSeat.signal.reason });
    }
    try {
      const { stat } = await session.create(path, request.data, { mode: 'ephemeral' });
      return seatOf(path, stat.czxid, writeSeat);
    } catch (err) {
      if (isZkError(err, 'NODE_EXISTS')) {
        // Our earlier attempt's reply was lost but the create went through: adopt it if it is ours.
        const stat = await session.exists(path);
        if (stat !== null && stat.ephemeralOwner === session.sessionIdBigInt && session.generation === writeSeat.generation) {
          return seatOf(path, stat.czxid, writeSeat);
        }
        throw err;
      }
      if (!isZkError(err, 'CONNECTION_LOSS')) throw err;
      await session.waitForConnected(writeSeat.signal).catch(() => undefined);
    }
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
