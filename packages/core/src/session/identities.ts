/**
 * Who the server will take a session for, as far as its options tell (docs/security.md, "ACLs"):
 * its digest credentials, its SASL user, its client certificate's subject. What `auth` in an ACL
 * expands to, and what the session's own ACL is judged against before anything is created.
 */
import { createHash } from 'node:crypto';
import type { AclEntry } from './types.js';
import { clientCertificateSubject, mayBeSubject, type X509Subject } from './x509Subject.js';
import type { Pem } from './tlsOptions.js';

/** The identities a session authenticates as. */
export interface SessionIdentities {
  /** `digest` ids, `user:base64(sha1(user:password))`. */
  readonly digests: readonly string[];
  /** The `sasl` id: the SASL user name. */
  readonly sasl?: string | undefined;
  /** The `x509` id: the client certificate's subject (undefined without one, or unreadable). */
  readonly x509?: X509Subject | undefined;
  /** A client certificate was given but could not be read: `x509` entries are not judged. */
  readonly x509Unknown?: boolean | undefined;
}

/**
 * The `digest` id ZooKeeper derives from `user:password`: `user:base64(sha1(user:password))`, as
 * zkCli's `digest` ACL scheme expects it.
 */
export function digestId(credentials: string): string {
  const user = credentials.slice(0, credentials.indexOf(':'));
  return `${user}:${createHash('sha1').update(credentials).digest('base64')}`;
}

/** The identities of a session with these options. */
export function sessionIdentities(options: {
  auth: ReadonlyArray<{ scheme: string; credentials: string }>;
  sasl?: { username: string } | undefined;
  tls?: { cert?: Pem | Pem[] | undefined } | undefined;
}): SessionIdentities {
  const cert = options.tls?.cert;
  const x509 = cert === undefined ? undefined : clientCertificateSubject(cert);
  return {
    digests: options.auth.filter((a) => a.scheme === 'digest').map((a) => digestId(a.credentials)),
    sasl: options.sasl?.username,
    x509,
    x509Unknown: cert !== undefined && x509 === undefined,
  };
}

/**
 * Whether `entry` names one of `identities`, judged from here: `digest`, `sasl` and `x509`
 * exactly (an `x509` subject leniently, see {@link mayBeSubject}); `auth` when the session has any
 * identity (the server refuses it otherwise, INVALID_ACL); schemes a client cannot judge (`ip`,
 * custom providers) count as ours: never refuse what may work. `world:anyone` is nobody's.
 */
export function namesUs(entry: AclEntry, identities: SessionIdentities): boolean {
  switch (entry.scheme) {
    case 'world':
      return false;
    case 'digest':
      return identities.digests.includes(entry.id);
    case 'sasl':
      return identities.sasl !== undefined && entry.id === identities.sasl;
    case 'x509':
      if (identities.x509Unknown === true) return true;
      return identities.x509 !== undefined && mayBeSubject(entry.id, identities.x509);
    case 'auth':
      return identities.digests.length > 0 || identities.sasl !== undefined || identities.x509 !== undefined || identities.x509Unknown === true;
    default:
      return true;
  }
}
