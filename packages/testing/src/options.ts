import { z } from 'zod';
import type { AssertTrue, OptionsSchema, ParsedBy, TypesEqual } from '@zk-recipes/core/recipe-kit';
import type { ResolvedSaslOptions, TestingSaslOptions } from './sasl.js';
import type { ResolvedTlsOption, TestingTlsOption } from './tls/testingTls.js';

/** What a standalone server and a cluster's members are both started with. */
export interface ServerBasics {
  /** ZooKeeper's tick, in ms (default 200); session timeouts are bounded by 2..20 ticks unless set below. */
  tickTimeMs?: number | undefined;
  /** Smallest session timeout the server grants, in ms (ZooKeeper's default: 2 ticks). */
  minSessionTimeoutMs?: number | undefined;
  /** Largest session timeout the server grants, in ms (default 60000). */
  maxSessionTimeoutMs?: number | undefined;
  /** fsync the transaction log (default true); turn off for speed when durability across a crash does not matter. */
  forceSync?: boolean | undefined;
  /** Extra `-Dkey=value` JVM system properties (e.g. `zookeeper.enforceQuota`). */
  systemProperties?: Record<string, string> | undefined;
  /** Extra `key=value` lines for zoo.cfg; they override ours. */
  extraConfig?: Record<string, string> | undefined;
  /** Serve TLS too, on a second client port, with test certificates (`server.tls`, `cluster.tls`). Default false. */
  tls?: TestingTlsOption | undefined;
  /**
   * SASL DIGEST-MD5 with these users (`{ users: { alice: 'pw-a' } }`): a JAAS `Server` section
   * with `DigestLoginModule`, and `sasl` as an ACL scheme. Default: no SASL.
   */
  sasl?: TestingSaslOptions | undefined;
}

/** Options of {@link TestingServer.start}. */
export interface TestingServerOptions extends ServerBasics {
  /** Client port; a free loopback port when omitted. */
  port?: number | undefined;
  /** How long to wait for the server to serve, in ms (default 45000). */
  startTimeoutMs?: number | undefined;
}

/** Options of `TestingCluster.start`. */
export interface TestingClusterOptions extends ServerBasics {
  /** Number of servers, 1..9 (default 3; a quorum is a majority of them). */
  size?: number | undefined;
  /** How long to wait for the servers to serve and elect a leader, in ms (default 60000). */
  startTimeoutMs?: number | undefined;
}

/** {@link ServerBasics} with defaults applied. */
export interface ResolvedServerBasics {
  /** ZooKeeper's tick, in ms. */
  tickTimeMs: number;
  /** Smallest session timeout the server grants, in ms; absent: ZooKeeper's default (2 ticks). */
  minSessionTimeoutMs?: number | undefined;
  /** Largest session timeout the server grants, in ms. */
  maxSessionTimeoutMs: number;
  /** Whether the server fsyncs its transaction log. */
  forceSync: boolean;
  /** Extra JVM system properties (`-Dkey=value`), possibly none. */
  systemProperties: Record<string, string>;
  /** Extra zoo.cfg lines (`key=value`), possibly none; they override ours. */
  extraConfig: Record<string, string>;
  /** How long to wait for the server (or ensemble) to serve, in ms. */
  startTimeoutMs: number;
  /** `false` (no TLS), or how the TLS port handles client certificates. */
  tls: ResolvedTlsOption;
  /** The SASL users and whether clients must authenticate; absent: no SASL. */
  sasl?: ResolvedSaslOptions | undefined;
}

/** {@link TestingServerOptions} with defaults applied. */
export interface ResolvedServerOptions extends ResolvedServerBasics {
  /** Client port; absent: a free loopback port is picked at start. */
  port?: number | undefined;
}

/** {@link TestingClusterOptions} with defaults applied. */
export interface ResolvedClusterOptions extends ResolvedServerBasics {
  /** Number of servers, 1..9. */
  size: number;
}

// The schemas of the tls and sasl options live here, private, with the servers' own: exported from
// their modules they would put zod's types in this package's declarations.
const testingTlsOptionSchema = z
  .union([z.boolean(), z.object({ clientAuth: z.enum(['need', 'want', 'none']).optional() }).strict()])
  .optional()
  .transform((v): ResolvedTlsOption => (v === undefined || v === false ? false : { clientAuth: v === true ? 'need' : (v.clientAuth ?? 'need') }));

type _SchemaMatchesTestingTlsOption = AssertTrue<TypesEqual<z.input<typeof testingTlsOptionSchema>, TestingTlsOption | undefined>>;
type _SchemaGivesResolvedTlsOption = AssertTrue<TypesEqual<z.output<typeof testingTlsOptionSchema>, ResolvedTlsOption>>;

const testingSaslOptionsSchema = z
  .object({
    users: z
      .record(
        z.string().regex(/^[A-Za-z0-9_]+$/, 'a SASL user name is letters, digits and _'),
        z.string().regex(/^[^"\\\r\n]*$/, 'a SASL password may not hold ", \\ or a line break'),
      )
      .refine((users) => Object.keys(users).length > 0, { message: 'at least one SASL user' }),
    requireClientAuth: z.boolean().default(false),
  })
  .strict();

// The schema accepts exactly the public type and gives exactly the resolved one.
type _SchemaMatchesTestingSaslOptions = AssertTrue<TypesEqual<z.input<typeof testingSaslOptionsSchema>, TestingSaslOptions>>;
type _SchemaGivesResolvedSaslOptions = AssertTrue<TypesEqual<z.output<typeof testingSaslOptionsSchema>, ResolvedSaslOptions>>;

const testingServerOptionsSchema = z
  .object({
    tickTimeMs: z.number().int().positive().default(200),
    minSessionTimeoutMs: z.number().int().positive().optional(),
    maxSessionTimeoutMs: z.number().int().positive().default(60_000),
    forceSync: z.boolean().default(true),
    systemProperties: z.record(z.string(), z.string()).default({}),
    extraConfig: z.record(z.string(), z.string()).default({}),
    port: z.number().int().min(1).max(65_535).optional(),
    startTimeoutMs: z.number().int().positive().default(45_000),
    tls: testingTlsOptionSchema,
    sasl: testingSaslOptionsSchema.optional(),
  })
  .strict()
  .refine((o) => o.minSessionTimeoutMs === undefined || o.minSessionTimeoutMs <= o.maxSessionTimeoutMs, {
    message: 'minSessionTimeoutMs must not exceed maxSessionTimeoutMs',
  });

const testingClusterOptionsSchema = z
  .object({
    size: z.number().int().min(1).max(9).default(3),
    tickTimeMs: z.number().int().positive().default(200),
    minSessionTimeoutMs: z.number().int().positive().optional(),
    maxSessionTimeoutMs: z.number().int().positive().default(60_000),
    forceSync: z.boolean().default(true),
    systemProperties: z.record(z.string(), z.string()).default({}),
    extraConfig: z.record(z.string(), z.string()).default({}),
    startTimeoutMs: z.number().int().positive().default(60_000),
    tls: testingTlsOptionSchema,
    sasl: testingSaslOptionsSchema.optional(),
  })
  .strict();

// The schemas accept exactly the public types and give exactly the resolved ones: this stops the
// build if one changes without the other.
type _SchemaMatchesTestingServerOptions = AssertTrue<TypesEqual<z.input<typeof testingServerOptionsSchema>, TestingServerOptions>>;
type _SchemaGivesResolvedServerOptions = AssertTrue<TypesEqual<z.output<typeof testingServerOptionsSchema>, ResolvedServerOptions>>;
type _SchemaMatchesTestingClusterOptions = AssertTrue<TypesEqual<z.input<typeof testingClusterOptionsSchema>, TestingClusterOptions>>;
type _SchemaGivesResolvedClusterOptions = AssertTrue<TypesEqual<z.output<typeof testingClusterOptionsSchema>, ResolvedClusterOptions>>;

/** Validates a server's options (absent means none); the error has code INVALID_ARGUMENT and names `where`. */
export function parseTestingServerOptions(input: unknown, where: string): ResolvedServerOptions {
  return parseTestingOptions(testingServerOptionsSchema, input, where);
}

/** Validates a cluster's options (absent means none); the error has code INVALID_ARGUMENT and names `where`. */
export function parseTestingClusterOptions(input: unknown, where: string): ResolvedClusterOptions {
  return parseTestingOptions(testingClusterOptionsSchema, input, where);
}

/** Parses options, throwing an Error with code INVALID_ARGUMENT that lists every problem. */
function parseTestingOptions<Schema extends OptionsSchema>(schema: Schema, input: unknown, where: string): ParsedBy<Schema> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data as ParsedBy<Schema>;
  const problems = result.error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(value)'}: ${issue.message}`)
    .join('; ');
  throw Object.assign(new Error(`${where}: invalid options: ${problems}`, { cause: result.error }), { code: 'INVALID_ARGUMENT' });
}
