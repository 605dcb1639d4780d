import { z } from 'zod';

/** Options of {@link TestingServer.start} (and, with `size`, of `TestingCluster.start`). */
export const TestingServerOptionsSchema = z
  .object({
    /** ZooKeeper's tick; session timeouts are bounded by 2..20 ticks unless set below. */
    tickTimeMs: z.number().int().positive().default(200),
    /** Smallest session timeout the server grants (ZooKeeper's default: 2 ticks). */
    minSessionTimeoutMs: z.number().int().positive().optional(),
    /** Largest session timeout the server grants. */
    maxSessionTimeoutMs: z.number().int().positive().default(60_000),
    /** fsync the transaction log; turn off for speed when durability across a crash does not matter. */
    forceSync: z.boolean().default(true),
    /** Extra `-Dkey=value` JVM system properties (e.g. `zookeeper.enforceQuota`). */
    systemProperties: z.record(z.string(), z.string()).default({}),
    /** Extra `key=value` lines for zoo.cfg; they override ours. */
    extraConfig: z.record(z.string(), z.string()).default({}),
    /** Client port; a free loopback port when omitted. */
    port: z.number().int().min(1).max(65_535).optional(),
    /** How long to wait for the server(s) to serve. */
    startTimeoutMs: z.number().int().positive().default(45_000),
  })
  .strict()
  .refine((o) => o.minSessionTimeoutMs === undefined || o.minSessionTimeoutMs <= o.maxSessionTimeoutMs, {
    message: 'minSessionTimeoutMs must not exceed maxSessionTimeoutMs',
  });

/** Input type of {@link TestingServerOptionsSchema}. */
export type TestingServerOptions = z.input<typeof TestingServerOptionsSchema>;
/** Parsed options, defaults applied. */
export type ResolvedServerOptions = z.output<typeof TestingServerOptionsSchema>;

/** Options of `TestingCluster.start`. */
export const TestingClusterOptionsSchema = z
  .object({
    /** Number of servers (a quorum is a majority of them). */
    size: z.number().int().min(1).max(9).default(3),
    tickTimeMs: z.number().int().positive().default(200),
    minSessionTimeoutMs: z.number().int().positive().optional(),
    maxSessionTimeoutMs: z.number().int().positive().default(60_000),
    forceSync: z.boolean().default(true),
    systemProperties: z.record(z.string(), z.string()).default({}),
    extraConfig: z.record(z.string(), z.string()).default({}),
    startTimeoutMs: z.number().int().positive().default(60_000),
  })
  .strict();

/** Input type of {@link TestingClusterOptionsSchema}. */
export type TestingClusterOptions = z.input<typeof TestingClusterOptionsSchema>;

/** Parses options, throwing an Error with code INVALID_ARGUMENT that lists every problem. */
export function parseTestingOptions<S extends z.ZodType>(schema: S, input: unknown, where: string): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const problems = result.error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(value)'}: ${issue.message}`)
    .join('; ');
  throw Object.assign(new Error(`${where}: invalid options: ${problems}`, { cause: result.error }), { code: 'INVALID_ARGUMENT' });
}
