import { isOpenAcl } from '../session/acl.js';
import type { ZkSession } from '../session/ZkSession.js';

/**
 * Creates a lock directory (the node that holds the contenders' nodes) and its missing ancestors,
 * in one round trip; one that exists already is left as it is (its ACL is checked on first use,
 * see `directoryAcl.ts`). The directory is a container: the server removes it once idle.
 *
 * Its ancestors are containers too under the open default ACL (nothing to protect; lock paths do
 * not pile up), but persistent with a restrictive one: a container vanishes once empty, and whoever
 * may create in its parent could then re-create it with an ACL of their own. docs/security.md, "ACLs".
 */
export function createLockDirectory(session: ZkSession, dir: string, data?: Uint8Array | null): Promise<void> {
  const ancestors = isOpenAcl(session.defaultAcl) ? 'container' : 'persistent';
  return session.mkdirp(dir, 'container', { ancestors, data });
}
