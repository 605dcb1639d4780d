/*
 * The `sasl` option of `ZkSession.connect()`: its public type. Its schema is private to
 * `../options.ts`: a schema exported from here would put the validation library's types in our
 * declarations.
 */

/**
 * SASL credentials the session authenticates with on every connection, before any other request
 * (docs/security.md). ZooKeeper then knows the session as `sasl:<username>`: ACL entries
 * `{ scheme: 'sasl', id: '<username>', perms }` name it. Only DIGEST-MD5, the mechanism of
 * servers whose JAAS `Server` section uses `DigestLoginModule`; Kerberos (GSSAPI) is not supported.
 */
export interface SaslOptions {
  /** The only mechanism supported: `DIGEST-MD5`. */
  mechanism: 'DIGEST-MD5';
  /** A user of the servers' JAAS `Server` section (`user_<username>="<password>"`). */
  username: string;
  /** Never part of an error message. */
  password: string;
}
