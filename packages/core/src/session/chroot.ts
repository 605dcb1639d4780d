/**
 * The connect string's chroot, created on connect if it is missing, as Curator's namespace is:
 * every path of the session lives under it, and a missing one would fail every create with
 * NO_NODE. Its missing ancestors too: persistent, with the session's ACL (docs/security.md).
 */
import { ZkRecipesError } from '../errors.js';
import { pathAndAncestors } from '../nodes/pathAndAncestors.js';
import type { Stat } from './types.js';

/** What creating the chroot needs of the session. */
export interface ChrootSession {
  /** `exists` inside the chroot (`/` is the chroot itself). */
  exists(path: '/'): Promise<Stat | null>;
  /** A persistent node at `path`, outside the chroot, with the session's ACL. */
  createOutsideChroot(path: string): Promise<unknown>;
}

export async function createChroot(chroot: string | undefined, session: ChrootSession): Promise<void> {
  if (chroot === undefined || chroot === '' || chroot === '/') return;
  // Present already (the usual case): nothing to create, and no create to be refused by an
  // ancestor's ACL (ZooKeeper checks the parent's permission before the node's existence).
  if ((await session.exists('/')) !== null) return;
  // Pipelined, parents first: ZooKeeper applies them in order.
  const results = await Promise.allSettled(pathAndAncestors(chroot).map((p) => session.createOutsideChroot(p)));
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected' && !(r.reason instanceof ZkRecipesError && r.reason.code === 'NODE_EXISTS'));
  if (failure !== undefined) throw failure.reason;
}
