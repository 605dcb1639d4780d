/** Where a command writes, what it reads from its environment, and what stops it (Ctrl-C). */
export interface Io {
  /** Where results go (`process.stdout`). */
  stdout: {
    /** Writes text as it is. */
    write(text: string): unknown;
    /** True on a terminal: `--watch` redraws in place. */
    isTTY?: boolean;
  };
  /** Where errors go (`process.stderr`). */
  stderr: {
    /** Writes text as it is. */
    write(text: string): unknown;
  };
  /** The environment (`ZK_CONNECT` and the credentials' variables). */
  env: NodeJS.ProcessEnv;
  /** Aborted on SIGINT/SIGTERM: `--watch` then ends with exit code 0. */
  signal: AbortSignal;
}
