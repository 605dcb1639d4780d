import { InsecureAclError } from '../errors.js';
import { foreignGrants, formatAcl, isOpenAcl, LOCK_TAKEOVER } from '../session/acl.js';
import { sessionIdentities } from '../session/identities.js';
import type { ZkSession } from '../session/ZkSession.js';

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
