import { InsecureAclError } from '../errors.js';
import { foreignGrants, formatAcl, isOpenAcl, PERMS } from './acl.js';
import { sessionIdentities } from './identities.js';
import type { ZkSession } from './ZkSession.js';

/** Rights on a shared value's node that let their holder change what we read: write it, delete it, or setACL. */
const VALUE_TAKEOVER = PERMS.WRITE | PERMS.DELETE | PERMS.ADMIN;

/**
 * Refuses a shared value's node that someone else made and left writable (a semaphore's
 * `SharedCount`: whoever may write it may raise the count), like a lock directory
 * (docs/security.md, "ACLs"). Only for a session with a restrictive ACL and `aclCheck` on. Ours
 * are the identities our configured ACL names (`auth` as our own: digest ids from our
 * credentials, our SASL user, our certificate's subject). `what` names the node in the message.
 *
 * @throws InsecureAclError (`INSECURE_ACL`) naming the node and the ACL found
 */
export async function checkSharedNodeAcl(session: ZkSession, path: string, what: string): Promise<void> {
  if (session.options.aclCheck === 'off' || isOpenAcl(session.defaultAcl)) return;
  const found = await session.getACL(path);
  const configured = session.defaultAcl.filter((e) => e.scheme !== 'auth');
  const { foreign, unverifiable } = foreignGrants(found.acl, configured, sessionIdentities(session.options), VALUE_TAKEOVER);
  if (foreign.length === 0) return;
  const why = unverifiable
    ? `it could not be verified because this session lacks ADMIN on it: the server then shows digest ids as user:x, ` +
      `and [${formatAcl(foreign)}] may be anyone who authenticates with that user name (docs/security.md recommends giving our identity ADMIN)`
    : `[${formatAcl(foreign)}] lets someone else write, delete or administer it`;
  throw new InsecureAclError(
    `${what} ${path} has the ACL [${formatAcl(found.acl)}]: ${why}. Give it this session's ACL (setACL), or pass aclCheck: 'off' to use it anyway (docs/security.md)`,
    found.acl,
    { op: 'getACL', path },
  );
}
