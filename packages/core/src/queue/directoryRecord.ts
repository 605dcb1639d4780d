import { isZkError } from '../errors.js';
import type { ZkSession } from '../session/ZkSession.js';
import { createLockDirectory } from './lockDirectory.js';

/**
 * A value every contender of one queue must agree on, kept as the data of the queue's directory
 * (a semaphore's fixed `maxLeases`). See docs/architecture.md, "The directory's record".
 *
 * The directory is a container, like every lock directory: once the last contender has left the
 * server may remove it, and the record with it, and whoever creates it next records their value.
 * So agreement holds per incarnation of the directory (its `czxid`), never per lock object.
 */
export interface DirectoryRecord {
  /** What this client records. */
  readonly data: Uint8Array;
  /** The error for a directory that records something else (`found`). */
  mismatch(found: Buffer): Error;
}

/**
 * Creates the directory with the record as its data (a container; its missing ancestors as
 * `createLockDirectory` makes them). Another client may create it first: then it is checked like
 * any other.
 */
export function createRecordedDirectory(session: ZkSession, dir: string, record: DirectoryRecord): Promise<void> {
  return createLockDirectory(session, dir, record.data);
}

/**
 * Checks the record of the directory incarnation we are seated in (our node keeps it from being
 * removed) and returns that incarnation's `czxid`. An empty directory (created by an engine
 * without a record, by Curator, by hand) is claimed with a write at the version read: two clients
 * with different values cannot both claim it. Safe to run again after a lost reply: a claim that
 * was applied reads back as our own value.
 *
 * @throws the record's `mismatch` error when the directory records another value
 */
export async function agreeOnRecord(session: ZkSession, dir: string, record: DirectoryRecord): Promise<bigint> {
  const ours = Buffer.from(record.data);
  for (let attempt = 0; attempt < 10; attempt++) {
    const { data, stat } = await session.getData(dir);
    if (data.equals(ours)) return stat.czxid;
    if (data.length > 0) throw record.mismatch(data);
    try {
      await session.setData(dir, record.data, stat.version);
      return stat.czxid;
    } catch (err) {
      if (!isZkError(err, 'BAD_VERSION')) throw err; // someone claimed it first: read what they wrote
    }
  }
  throw record.mismatch(Buffer.alloc(0));
}
