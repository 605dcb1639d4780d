/** ZkSession options: the public types, one schema that checks them, defaults in one place. */
import { z } from 'zod';
import { InvalidArgumentError } from '../errors.js';
import type { RetryPolicy } from '../retry/RetryPolicy.js';
import type { AssertTrue, TypesEqual } from '../support/typeEquality.js';
import { adminForAnyone, missingLockPermissions } from './acl.js';
import { sessionIdentities } from './identities.js';
import { chrootIssue, hostListIssue, normalizedConnectString } from './connectString.js';
import type { SaslOptions } from './sasl/options.js';
import type { TlsOptions } from './tlsOptions.js';
import type { AclEntry } from './types.js';
import { MAX_TIMER_MS } from '../retry/timerLimit.js';

/** The open, unsafe ACL (world:anyone, all permissions): ZooKeeper's OPEN_ACL_UNSAFE. */
export const OPEN_ACL_UNSAFE: readonly AclEntry[] = Object.freeze([{ perms: 31, scheme: 'world', id: 'anyone' }]);

export { MAX_TIMER_MS };

/** ZooKeeper's default `jute.maxbuffer`: the largest request frame a server accepts (0xfffff bytes). */
export const DEFAULT_MAX_REQUEST_BYTES = 0xfffff;

/** Defaults of {@link ZkSessionOptions}. */
export const ZK_SESSION_DEFAULTS = {
  /** Requested session timeout, ms. */
  sessionTimeoutMs: 15_000,
  /** How long `connect()` waits for the first connection, ms. */
  connectionTimeoutMs: 15_000,
  /** The largest request sent: ZooKeeper's default `jute.maxbuffer`. */
  maxRequestBytes: DEFAULT_MAX_REQUEST_BYTES,
  /** Passed to `exponentialBackoff` when no retryPolicy is given. */
  retry: {
    /** The first retry's base sleep, ms. */
    baseSleepMs: 100,
    /** Retries before giving up. */
    maxRetries: 10,
    /** The longest sleep between retries, ms. */
    maxSleepMs: 5_000,
  },
  /** Open to anyone: give the session an `acl` (docs/security.md). */
  acl: OPEN_ACL_UNSAFE,
  /** Refuse a lock directory whose ACL lets others take the lock away. */
  aclCheck: 'on',
} as const;

/** Strict: a misspelt field (`perm`, `ids`) is refused rather than dropped from the ACL. */
const AclEntrySchema = z
  .object({
    perms: z.number().int().min(0).max(31),
    scheme: z.string().min(1),
    id: z.string(),
  })
  .strict();

const RetryPolicySchema = z.custom<RetryPolicy>(
  (v) => typeof v === 'object' && v !== null && typeof (v as { nextDelayMs?: unknown }).nextDelayMs === 'function',
  { message: 'retryPolicy must have a nextDelayMs(retryCount, elapsedMs, error) method' },
);

const timerMs = (what: string) =>
  z
    .number()
    .int()
    .positive()
    .max(MAX_TIMER_MS, `${what} must be at most ${MAX_TIMER_MS} ms (about 24.8 days): a longer timer cannot be set`);

/** Credentials added to every (re)built ZooKeeper session. */
export interface DigestAuth {
  /** The only scheme: `digest`. */
  scheme: 'digest';
  /** `user:password` */
  credentials: string;
}

/** Options of `ZkSession.connect()`. */
export interface ZkSessionOptionsInput {
  /** `host:port[,host:port...][/chroot]` (spaces around the parts are dropped) */
  connectString: string;
  /**
   * Requested session timeout, in ms (a positive integer up to 2^31-1); the server clamps it to
   * its min/max (default 2..20 tickTime). Default 15000.
   */
  sessionTimeoutMs?: number | undefined;
  /** How long `ZkSession.connect()` waits for the first connection, in ms (a positive integer up to 2^31-1). Default 15000. */
  connectionTimeoutMs?: number | undefined;
  /**
   * The largest request this session sends: the servers' `jute.maxbuffer` (default 1,048,575
   * bytes; at least 1024). A server closes the connection of a client that sends more, and the wire
   * client would send it again after every reconnection; a larger request is refused here instead
   * (`INVALID_ARGUMENT`), before anything reaches the wire.
   */
  maxRequestBytes?: number | undefined;
  /** Retry policy recipes use for operations that are safe to retry. Default exponentialBackoff(100, 10, 5000). */
  retryPolicy?: RetryPolicy | undefined;
  /** Digest credentials added to every (re)built ZooKeeper session. Default none. */
  auth?: DigestAuth[] | undefined;
  /**
   * Default ACL for nodes recipes create (at least one entry). Default {@link OPEN_ACL_UNSAFE}:
   * anyone may delete anyone's lock node. It must grant this session READ, CREATE and DELETE (else
   * `INVALID_ARGUMENT`). See docs/security.md, "ACLs".
   */
  acl?: AclEntry[] | undefined;
  /**
   * With a restrictive `acl`: `'on'` (default) refuses a lock directory whose ACL lets someone else
   * create, delete or administer its nodes (`INSECURE_ACL`); `'off'` uses it anyway (a directory
   * shared with a client you trust that cannot use your ACL). See docs/security.md, "ACLs".
   */
  aclCheck?: 'on' | 'off' | undefined;
  /**
   * Connect over TLS (to the servers' `secureClientPort`): every connection of the session,
   * reconnections and failover included. With `cert` and `key`, a server with
   * `X509AuthenticationProvider` gives the session the `x509` identity of the certificate's subject
   * (ACL `{ scheme: 'x509', id: 'CN=alice' }`). A certificate problem, or a port that does not
   * speak TLS, fails `connect()` at once with `TLS_HANDSHAKE`. Default: plaintext. See docs/security.md.
   */
  tls?: TlsOptions | undefined;
  /**
   * SASL DIGEST-MD5 credentials (`{ mechanism: 'DIGEST-MD5', username, password }`), used on every
   * connection of the session (reconnections and failover included) before any other request. The
   * server then knows the session as `sasl:<username>` (ACL `{ scheme: 'sasl', id: 'alice', perms }`).
   * Refused credentials fail `connect()` at once with `AUTH_FAILED`. Kerberos (GSSAPI) is not
   * supported. Default: none. See docs/security.md.
   */
  sasl?: SaslOptions | undefined;
  /**
   * Names this process's locks (1 to 128 characters, e.g. `orders-worker`): written, with the host
   * name and the pid, into every queue node this session creates without a recipe's `data` option,
   * so that `zk-recipes inspect` and zkCli tell whose a node is. Default: none (host and pid only).
   * See docs/observability.md, "Owner data".
   */
  label?: string | undefined;
}

/** A session's options as validated, every default applied (`ZkSession.options`). */
export interface ZkSessionOptions {
  /** Normalised: no spaces around its parts. */
  connectString: string;
  /** Requested session timeout, ms. */
  sessionTimeoutMs: number;
  /** How long `connect()` waits for the first connection, ms. */
  connectionTimeoutMs: number;
  /** The largest request this session sends, bytes. */
  maxRequestBytes: number;
  /** When absent, the session uses exponentialBackoff(100, 10, 5000). */
  retryPolicy?: RetryPolicy | undefined;
  /** Digest credentials added to every ZooKeeper session. */
  auth: DigestAuth[];
  /** The ACL of the nodes recipes create. */
  acl: AclEntry[];
  /** Whether a lock directory's ACL is checked against `acl`. */
  aclCheck: 'on' | 'off';
  /** TLS settings, when the session connects over TLS. */
  tls?: TlsOptions | undefined;
  /** SASL DIGEST-MD5 credentials, when set. */
  sasl?: SaslOptions | undefined;
  /** Names this process's locks in their owner data. */
  label?: string | undefined;
}

// The schemas of the tls and sasl options live here, private, with the session's: exported from
// their own modules they would put zod's types in our declarations.
const pem = z.union([z.string().min(1, 'a PEM string must not be empty'), z.instanceof(Buffer)]);
const pems = z.union([pem, z.array(pem).min(1)]);

const tlsOptionsSchema = z
  .object({
    ca: pems.optional(),
    cert: pems.optional(),
    key: pems.optional(),
    passphrase: z.string().optional(),
    servername: z.string().min(1).optional(),
    rejectUnauthorized: z.boolean().optional(),
  })
  .strict()
  .refine((o) => (o.cert === undefined) === (o.key === undefined), {
    message: 'tls.cert and tls.key go together: a client certificate needs its key',
  });

// The schema accepts and gives exactly the public type: the build stops if one changes alone.
type _SchemaMatchesTlsOptions = AssertTrue<TypesEqual<z.input<typeof tlsOptionsSchema>, TlsOptions>>;
type _SchemaGivesTlsOptions = AssertTrue<TypesEqual<z.output<typeof tlsOptionsSchema>, TlsOptions>>;

/** Strict: a misspelt or extra field is refused by `connect()`. */
const saslOptionsSchema = z
  .object({
    mechanism: z.literal('DIGEST-MD5', { message: "sasl.mechanism must be 'DIGEST-MD5' (Kerberos/GSSAPI is not supported)" }),
    username: z.string().min(1),
    password: z.string(),
  })
  .strict();

// The schema accepts and gives exactly the public type: this stops the build if one changes alone.
type _SchemaMatchesSaslOptions = AssertTrue<TypesEqual<z.input<typeof saslOptionsSchema>, SaslOptions>>;
type _SchemaGivesSaslOptions = AssertTrue<TypesEqual<z.output<typeof saslOptionsSchema>, SaslOptions>>;

const zkSessionOptionsSchema = z
  .object({
    connectString: z
      .string()
      .transform(normalizedConnectString)
      .superRefine((s, ctx) => {
        for (const message of [hostListIssue(s), chrootIssue(s)]) if (message !== undefined) ctx.addIssue({ code: 'custom', message });
      }),
    sessionTimeoutMs: timerMs('sessionTimeoutMs').default(ZK_SESSION_DEFAULTS.sessionTimeoutMs),
    connectionTimeoutMs: timerMs('connectionTimeoutMs').default(ZK_SESSION_DEFAULTS.connectionTimeoutMs),
    maxRequestBytes: z.number().int().min(1024).default(ZK_SESSION_DEFAULTS.maxRequestBytes),
    retryPolicy: RetryPolicySchema.optional(),
    auth: z
      .array(z.object({ scheme: z.literal('digest'), credentials: z.string().regex(/^[^:]+:.*$/, 'user:pass') }).strict())
      .default([]),
    acl: z.array(AclEntrySchema).min(1).default(() => [...ZK_SESSION_DEFAULTS.acl]),
    aclCheck: z.enum(['on', 'off']).default(ZK_SESSION_DEFAULTS.aclCheck),
    tls: tlsOptionsSchema.optional(),
    sasl: saslOptionsSchema.optional(),
    label: z.string().min(1, 'label must not be empty').max(128, 'label must be at most 128 characters').optional(),
  })
  .strict()
  // An ACL that locks our own session out of its lock nodes would fail every acquire or release
  // with NO_AUTH, or leave a node nobody can delete: refused here, before anything is created.
  .superRefine((o, ctx) => {
    for (const missing of missingLockPermissions(o.acl, sessionIdentities(o))) {
      ctx.addIssue({ code: 'custom', path: ['acl'], message: `grants this session no ${missing.name} permission, needed ${missing.why}` });
    }
    // Refused rather than taken as open: whoever wrote it meant to restrict, and would silently lose
    // the directory check and the persistent parents.
    if (adminForAnyone(o.acl)) {
      ctx.addIssue({ code: 'custom', path: ['acl'], message: 'grants world:anyone ADMIN: anyone could setACL the nodes open. Drop ADMIN for anyone (docs/security.md, "ACLs")' });
    }
  });

// The schema accepts exactly the public input type and gives exactly the public parsed type: this
// stops the build if one changes without the other.
type _SchemaMatchesZkSessionOptionsInput = AssertTrue<TypesEqual<z.input<typeof zkSessionOptionsSchema>, ZkSessionOptionsInput>>;
type _SchemaGivesZkSessionOptions = AssertTrue<TypesEqual<z.output<typeof zkSessionOptionsSchema>, ZkSessionOptions>>;

/** Validates options, throwing InvalidArgumentError that lists every issue. */
export function parseZkSessionOptions(input: unknown): ZkSessionOptions {
  const r = zkSessionOptionsSchema.safeParse(input);
  if (!r.success) {
    const issues = r.error.issues.map((i) => `${i.path.join('.') || '(options)'}: ${i.message}`).join('; ');
    throw new InvalidArgumentError(`invalid ZkSession options: ${issues}`, { issues: r.error.issues });
  }
  return r.data;
}
