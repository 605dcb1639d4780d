/**
 * Who an ACL lets do what, as far as a client can tell (docs/security.md, "ACLs"). Pure functions:
 * the session checks its own ACL with them up front, the lock engine a lock directory's ACL.
 */
import { namesUs, type SessionIdentities } from './identities.js';
import { mayBeSubject } from './x509Subject.js';
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
export const LOCK_TAKEOVER = PERMS.CREATE | PERMS.DELETE | PERMS.ADMIN;

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
 * no lock, so nothing is checked against it and lock directories' ancestors stay containers. ADMIN
 * for anyone alone is not open but useless (anyone could setACL the rest to themselves):
 * {@link adminForAnyone} finds it, and `connect()` refuses it.
 */
export function isOpenAcl(acl: readonly AclEntry[]): boolean {
  return acl.some((e) => isAnyone(e) && (e.perms & (PERMS.CREATE | PERMS.DELETE)) !== 0);
}

/** An ACL that looks restrictive but gives `world:anyone` ADMIN: anyone may open it with setACL. */
export function adminForAnyone(acl: readonly AclEntry[]): boolean {
  return !isOpenAcl(acl) && acl.some((e) => isAnyone(e) && (e.perms & PERMS.ADMIN) !== 0);
}

/**
 * The permissions a lock needs that `acl` does not grant a session with `identities`. An entry
 * counts for us when it is `world:anyone` or names one of our identities (see {@link namesUs}):
 * `auth`, a `digest` id of our credentials, `sasl` of our SASL user, `x509` of our certificate's
 * subject, or a scheme a client cannot judge (`ip`). Empty when nothing is missing.
 */
export function missingLockPermissions(acl: readonly AclEntry[], identities: SessionIdentities): Array<{ name: string; why: string }> {
  let granted = 0;
  for (const e of acl) if (isAnyone(e) || namesUs(e, identities)) granted |= e.perms;
  return NEEDED.filter((n) => (granted & n.perm) === 0).map(({ name, why }) => ({ name, why }));
}

/**
 * A digest id as the server shows it to a session without ADMIN on the node: `user:x`, the hash
 * withheld (so that nobody without ADMIN can try passwords against it offline).
 */
const isMaskedDigest = (e: AclEntry): boolean => e.scheme === 'digest' && e.id.endsWith(':x');

/** A `sasl` entry of our SASL user, or an `x509` entry that surely names our certificate's subject. */
function namesOurCertificateOrSaslUser(e: AclEntry, identities: SessionIdentities): boolean {
  if (e.scheme === 'sasl') return identities.sasl !== undefined && e.id === identities.sasl;
  return e.scheme === 'x509' && identities.x509?.comparable === true && mayBeSubject(e.id, identities.x509);
}

/** What {@link foreignGrants} found. */
export interface ForeignGrants {
  /** The entries that give someone other than us one of the rights asked about. */
  readonly foreign: AclEntry[];
  /**
   * Some of them are digest ids the server masked (`user:x`): they may be ours, but a masked id
   * cannot be told from anyone's who picked the same user name, so they count as foreign.
   */
  readonly unverifiable: boolean;
}

/**
 * The entries of a node's ACL that give someone other than us any of `rights`: `world:anyone`, or
 * an identity that is not ours. Ours are the identities of `ownAcl` (the ACL the server stored on
 * a node we created with our configured ACL: `auth` expanded by the server, whatever the scheme),
 * and `identities` (our digest ids computed from our credentials, our SASL user, our certificate's
 * subject when it can surely be compared). Digest identities are
 * self-asserted (anyone may `addauth digest app:anything`), so a digest entry is ours only if it
 * matches exactly; a masked one (`user:x`) with any of `rights` is foreign.
 */
export function foreignGrants(nodeAcl: readonly AclEntry[], ownAcl: readonly AclEntry[], identities: SessionIdentities, rights: number): ForeignGrants {
  const ours = new Set(ownAcl.filter((e) => !isAnyone(e) && !isMaskedDigest(e)).map((e) => `${e.scheme}:${e.id}`));
  for (const id of identities.digests) ours.add(`digest:${id}`);
  const isOurs = (e: AclEntry): boolean => ours.has(`${e.scheme}:${e.id}`) || namesOurCertificateOrSaslUser(e, identities);
  const foreign = nodeAcl.filter((e) => (e.perms & rights) !== 0 && (isAnyone(e) || isMaskedDigest(e) || !isOurs(e)));
  return { foreign, unverifiable: foreign.some(isMaskedDigest) };
}
