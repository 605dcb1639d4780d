import { createRequire } from 'node:module';
import type { Command } from './commands/Command.js';
import type { Io } from './commands/Io.js';
import { CliError, type CliErrorCode } from './lock/CliError.js';
import { connectionOptionsOf } from './options/connectionOptions.js';
import { UsageError } from './options/UsageError.js';
import { PRINT_LIMITS } from './text/limits.js';
import { printable } from './text/printable.js';

/** The exit codes (docs/observability.md, "The zk-recipes CLI"). */
export const EXIT = {
  /** Done. */
  ok: 0,
  /** ZooKeeper failed (unreachable, refused credentials, an error), or nothing is at the path. */
  failure: 1,
  /** The command line is wrong, or names a node `revoke` refuses to write to. */
  usage: 2,
} as const;

/**
 * The exit code of each of the CLI's own errors: a path that is not what the command reads is
 * ZooKeeper's state (1); a node `revoke` will not write to is the command line's mistake, refused
 * before anything was written (2).
 */
export const CLI_ERROR_EXIT: Readonly<Record<CliErrorCode, number>> = {
  NO_NODE: EXIT.failure,
  NOT_A_LOCK: EXIT.failure,
  NOT_A_LOCK_NODE: EXIT.usage,
};

/**
 * The commands, each loaded when it runs: a command brings in `@zk-recipes/core` (and zod) and,
 * for `inspect` and `ls`, every recipe's rules, which `--version` and `--help` have no use for.
 */
const COMMANDS: ReadonlyArray<{ name: string; load: () => Promise<Command> }> = [
  { name: 'inspect', load: async () => (await import('./commands/inspect.js')).inspect },
  { name: 'ls', load: async () => (await import('./commands/ls.js')).ls },
  { name: 'revoke', load: async () => (await import('./commands/revoke.js')).revoke },
];

/** What `zk-recipes --help` prints: the commands, and where each one's options are. */
export const HELP = `Usage: zk-recipes <command> [options]

Commands:
  inspect <path>   every contender of one lock: node, kind, role, session, age, owner;
                   an election: its leader and every participant's id
  ls <root>        the locks (and elections) under <root> with their holder and waiter counts
  revoke <node>    ask the holder of a lock node to release it (Curator's revocation protocol)

Run \`zk-recipes <command> --help\` for a command's options (connection, TLS, SASL, digest).
--connect defaults to $ZK_CONNECT.

Exit codes: 0 done, 1 ZooKeeper failed or nothing is at the path, 2 usage error or not a lock node.`;

/**
 * Runs the `zk-recipes` command line `argv` (without `node` and the script) and resolves with its
 * exit code. Never rejects: every failure is printed to `io.stderr` with its code, on one line,
 * escaped and bounded (it may quote what ZooKeeper holds).
 */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  try {
    return await run([...argv], io);
  } catch (err) {
    const exit = exitCodeOf(err);
    io.stderr.write(`zk-recipes: ${printable(describe(err), PRINT_LIMITS.message)}\n`);
    if (err instanceof UsageError) io.stderr.write(`Run \`zk-recipes ${err.command === undefined ? '' : `${err.command} `}--help\` for usage.\n`);
    return exit;
  }
}

async function run(argv: string[], io: Io): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? await COMMANDS.find((c) => c.name === rest[0])?.load() : undefined;
    // Asked for: on stdout, done. Not asked for (no command at all): a usage error.
    (name === undefined ? io.stderr : io.stdout).write(`${topic?.help ?? HELP}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version') {
    io.stdout.write(`${version()}\n`);
    return EXIT.ok;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (entry === undefined) throw new UsageError(`unknown command ${JSON.stringify(name)}: one of ${COMMANDS.map((c) => c.name).join(', ')}`);
  const [command, core] = await Promise.all([entry.load(), import('@zk-recipes/core')]);
  const parsed = asUsageOf(command.name, core, () => command.parse(rest));
  if (parsed.help === true) {
    io.stdout.write(`${command.help}\n`);
    return EXIT.ok;
  }
  const options = connectionOptionsOf(parsed.connection, io.env, command.name);
  // The library's own check of the options first: what it refuses there is the command line's
  // fault (exit 2); what connect() then reports is ZooKeeper's (exit 1), an INVALID_ARGUMENT for a
  // port that does not speak ZooKeeper included.
  asUsageOf(command.name, core, () => core.parseZkSessionOptions(options));
  const session = await core.ZkSession.connect(options);
  try {
    await parsed.run(session, io);
  } finally {
    await session.close();
  }
  return EXIT.ok;
}

/**
 * `work`, with the errors that mean the command line is wrong turned into a UsageError of
 * `command`: parseArgs' (an unknown option, a missing value) and the library's
 * `INVALID_ARGUMENT` for what we pass on (a malformed connect string, a relative path).
 */
function asUsageOf<T>(command: string, { isZkError }: Pick<typeof import('@zk-recipes/core'), 'isZkError'>, work: () => T): T {
  const usage = (err: unknown): never => {
    const parseArgsError = typeof (err as { code?: unknown })?.code === 'string' && (err as { code: string }).code.startsWith('ERR_PARSE_ARGS');
    if (parseArgsError) throw new UsageError((err as Error).message, command);
    if (isZkError(err, 'INVALID_ARGUMENT')) throw new UsageError(`${err.code}: ${err.message}`, command);
    throw err;
  };
  try {
    return work();
  } catch (err) {
    return usage(err);
  }
}

function exitCodeOf(err: unknown): number {
  if (err instanceof UsageError) return EXIT.usage;
  if (err instanceof CliError) return CLI_ERROR_EXIT[err.code];
  return EXIT.failure;
}

function describe(err: unknown): string {
  if (err instanceof UsageError) return err.message;
  // The library's errors (ZkRecipesError) carry a `code` too: the same `CODE: message`.
  if (err instanceof CliError) return `${err.code}: ${err.message}`;
  if (err instanceof Error) return (err as { code?: unknown }).code === undefined ? err.message : `${String((err as { code?: unknown }).code)}: ${err.message}`;
  return String(err);
}

function version(): string {
  // src/ and dist/ both sit next to package.json.
  return (createRequire(import.meta.url)('../package.json') as { version: string }).version;
}
