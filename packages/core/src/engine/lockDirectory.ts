import { InsecureAclError, isZkError } from '../errors.js';
import { foreignGrants, formatAcl, isOpenAcl, LOCK_TAKEOVER } from '../session/acl.js';
import { sessionIdentities } from '../session/identities.js';
import type { ZkSession } from '../session/ZkSession.js';

/*
 * The lock directory (the node that holds the contenders' nodes): creating it, checking its ACL
 * and its record once per incarnation.
 */

/**
 * Creates a lock directory (the node that holds the contenders' nodes) and its missing ancestors,
 * in one round trip; one that exists already is left as it is (its ACL is checked on first use,
 * see {@link checkDirectoryAcl}). The directory is a container: the server removes it once idle.
 *
 * Its ancestors are containers too under the open default ACL (nothing to protect; lock paths do
 * not pile up), but persistent with a restrictive one: a container vanishes once empty, and whoever
 * may create in its parent could then re-create it with an ACL of their own. docs/security.md, "ACLs".
 */
export function createLockDirectory(session: ZkSession, dir: string, data?: Uint8Array | null): Promise<void> {
  const ancestors = isOpenAcl(session.defaultAcl) ? 'container' : 'persistent';
  return session.mkdirp(dir, 'container', { ancestors, data });
}

/**
 * Whether the locks of `session` check their directory's ACL: only with a restrictive ACL (under
 * the open default anyone may take any lock, and nothing is gained) and unless `aclCheck: 'off'`.
 */
export function checksDirectoryAcl(session: ZkSession): boolean {
  return session.options.aclCheck !== 'off' && !isOpenAcl(session.defaultAcl);
}

/**
 * Refuses a lock directory whose ACL lets someone other than us create, delete or administer its
 * nodes: a directory we did not create (made by hand, by a tool, by an older client) is used as it
 * is, and with such an ACL anyone could delete the holder's node or queue ahead of us. Our own
 * identities are read off the ACL the server stored on our node (`auth` expanded by the server,
 * whatever the scheme), sent in the same round trip. Returns the directory's `czxid`: the check
 * holds for that incarnation (docs/architecture.md, "The directory's ACL").
 *
 * @throws InsecureAclError (`INSECURE_ACL`) naming the directory and the ACL found
 */
export async function checkDirectoryAcl(session: ZkSession, dir: string, ownNode: string): Promise<bigint> {
  const [found, own] = await Promise.all([session.getACL(dir), session.getACL(ownNode)]);
  const { foreign, unverifiable } = foreignGrants(found.acl, own.acl, sessionIdentities(session.options), LOCK_TAKEOVER);
  if (foreign.length > 0) {
    const why = unverifiable
      ? `it could not be verified because this session lacks ADMIN on the directory: the server then shows digest ids as user:x, ` +
        `and [${formatAcl(foreign)}] may be anyone who authenticates with that user name (docs/security.md recommends giving our identity ADMIN)`
      : `[${formatAcl(foreign)}] lets someone else create or delete lock nodes there, so anyone could take the lock away`;
    throw new InsecureAclError(
      `lock directory ${dir} has the ACL [${formatAcl(found.acl)}]: ${why}. ` +
        `Give it this session's ACL (setACL), or pass aclCheck: 'off' to use it anyway (docs/security.md)`,
      found.acl,
      { op: 'getACL', path: dir },
    );
  }
  return found.stat.czxid;
}

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
 * {@link createLockDirectory} makes them). Another client may create it first: then it is checked like
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

