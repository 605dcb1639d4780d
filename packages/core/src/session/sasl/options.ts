/** The `sasl` option of `ZkSession.connect()`: its public type and the schema that checks it. */
import { z } from 'zod';
import type { AssertTrue, TypesEqual } from '../../support/typeEquality.js';

/**
 * SASL credentials the session authenticates with on every connection, before any other request
 * (docs/security.md). ZooKeeper then knows the session as `sasl:<username>`: ACL entries
 * `{ scheme: 'sasl', id: '<username>', perms }` name it. Only DIGEST-MD5, the mechanism of
 * servers whose JAAS `Server` section uses `DigestLoginModule`; Kerberos (GSSAPI) is not supported.
 */
export interface SaslOptions {
  mechanism: 'DIGEST-MD5';
  /** A user of the servers' JAAS `Server` section (`user_<username>="<password>"`). */
  username: string;
  /** Never part of an error message. */
  password: string;
}

/** Strict: a misspelt or extra field is refused by `connect()`. */
export const saslOptionsSchema = z
  .object({
    mechanism: z.literal('DIGEST-MD5', { message: "sasl.mechanism must be 'DIGEST-MD5' (Kerberos/GSSAPI is not supported)" }),
    username: z.string().min(1),
    password: z.string(),
  })
  .strict();

// The schema accepts and gives exactly the public type: this stops the build if one changes alone.
type _SchemaMatchesSaslOptions = AssertTrue<TypesEqual<z.input<typeof saslOptionsSchema>, SaslOptions>>;
type _SchemaGivesSaslOptions = AssertTrue<TypesEqual<z.output<typeof saslOptionsSchema>, SaslOptions>>;
