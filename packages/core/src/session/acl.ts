/**
 * Who an ACL lets do what, as far as a client can tell (docs/security.md, "ACLs"). Pure functions:
 * the session checks its own ACL with them up front, the lock engine a lock directory's ACL.
 */
import { createHash } from 'node:crypto';
import type { AclEntry } from './types.js';

/** ZooKeeper's permission bits (ZooDefs.Perms). */
export const PERMS = { READ: 1, WRITE: 2, CREATE: 4, DELETE: 8, ADMIN: 16 } as const;

/** What a lock's contenders must be able to do in its directory: list it, enqueue, and leave. */
const NEEDED = [
  { perm: PERMS.READ, name: 'READ', why: 'to list the lock directory' },
  { perm: PERMS.CREATE, name: 'CREATE', why: 'to create its lock nodes' },
  { perm: PERMS.DELETE, name: 'DELETE', why: 'to delete its own lock nodes (release)' },
] as const;

/**
 * Rights that let their holder take a lock away from us: CREATE (a node ahead of ours), DELETE (the
 * holder's node), ADMIN (a setACL that grants itself the other two).
 */
const TAKEOVER = PERMS.CREATE | PERMS.DELETE | PERMS.ADMIN;

const isAnyone = (e: AclEntry): boolean => e.scheme === 'world' && e.id === 'anyone';

const LETTERS: ReadonlyArray<readonly [string, number]> = [['c', PERMS.CREATE], ['d', PERMS.DELETE], ['r', PERMS.READ], ['w', PERMS.WRITE], ['a', PERMS.ADMIN]];

/** `zkCli`'s letters for a permission set: `cdrwa`. */
export function permLetters(perms: number): string {
  return LETTERS.filter(([, bit]) => (perms & bit) !== 0)
    .map(([letter]) => letter)
    .join('');
}

/** `world:anyone=cdrwa, digest:app:…=cdrwa`: an ACL as an error message shows it. */
export function formatAcl(acl: readonly AclEntry[]): string {
  return acl.map((e) => `${e.scheme}:${e.id}=${permLetters(e.perms)}`).join(', ');
}

/**
 * An ACL that lets anyone create or delete (the default, `OPEN_ACL_UNSAFE`, among them): it protects
 * no lock, so nothing is checked against it and lock directories' ancestors stay containers.
 */
export function isOpenAcl(acl: readonly AclEntry[]): boolean {
  return acl.some((e) => isAnyone(e) && (e.perms & (PERMS.CREATE | PERMS.DELETE)) !== 0);
}

/** The `digest` id ZooKeeper derives from `user:password`: `user:base64(sha1(user:password))`. */
export function digestId(credentials: string): string {
  const user = credentials.slice(0, credentials.indexOf(':'));
  return `${user}:${createHash('sha1').update(credentials).digest('base64')}`;
}

/**
 * The permissions a lock needs that `acl` does not grant a session authenticated with `digests`
 * (`user:password` each). An entry counts for us when it is `world:anyone`, `auth` (the server
 * fills in our own identities), a `digest` id of our credentials, or of a scheme we cannot judge
 * from here (`ip`, `x509`, `sasl`...: never refuse what may work). Empty when nothing is missing.
 */
export function missingLockPermissions(acl: readonly AclEntry[], digests: readonly string[]): Array<{ name: string; why: string }> {
  const ours = new Set(digests.map(digestId));
  let granted = 0;
  for (const e of acl) {
    const forUs = e.scheme === 'digest' ? ours.has(e.id) : e.scheme !== 'world' || e.id === 'anyone';
    if (forUs) granted |= e.perms;
  }
  return NEEDED.filter((n) => (granted & n.perm) === 0).map(({ name, why }) => ({ name, why }));
}

/** The server shows a digest id as `user:x` to a session without ADMIN on the node (ZOOKEEPER-1392). */
const isMaskedDigest = (e: AclEntry): boolean => e.scheme === 'digest' && e.id.endsWith(':x');
const digestUser = (id: string): string => id.slice(0, id.indexOf(':'));

/**
 * The entries of a lock directory's ACL that let someone other than us take the lock away:
 * CREATE, DELETE or ADMIN for `world:anyone`, or for an identity that is not ours. `ownAcl` is the
 * ACL the server stored on a node we created with our configured ACL: its identities are exactly
 * ours, `auth` expanded by the server whatever the scheme (digest, x509, sasl). READ for anyone is
 * fine. A digest id the server masked on either side can only be matched by its user name.
 */
export function foreignTakeoverGrants(directoryAcl: readonly AclEntry[], ownAcl: readonly AclEntry[]): AclEntry[] {
  const ours = new Set(ownAcl.filter((e) => !isAnyone(e)).map((e) => `${e.scheme}:${e.id}`));
  const ownDigests = ownAcl.filter((e) => e.scheme === 'digest');
  const isOurs = (e: AclEntry): boolean =>
    ours.has(`${e.scheme}:${e.id}`) ||
    (e.scheme === 'digest' && ownDigests.some((o) => (isMaskedDigest(o) || isMaskedDigest(e)) && digestUser(o.id) === digestUser(e.id)));
  return directoryAcl.filter((e) => (e.perms & TAKEOVER) !== 0 && (isAnyone(e) || !isOurs(e)));
}
