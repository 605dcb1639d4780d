import type { ZkSession } from '@zk-recipes/core';
import type { ConnectionValues } from '../options/connectionOptions.js';
import type { Io } from './Io.js';

/** A parsed command line: help, or what to run once connected. */
export type Parsed =
  | { help: true; connection: ConnectionValues }
  | { help?: false; connection: ConnectionValues; run: (session: ZkSession, io: Io) => Promise<void> };

/** One subcommand: its help, and its argument parser. */
export interface Command {
  name: string;
  help: string;
  /** @throws UsageError, or parseArgs' errors (`ERR_PARSE_ARGS_*`): both exit with 2. */
  parse(argv: string[]): Parsed;
}
