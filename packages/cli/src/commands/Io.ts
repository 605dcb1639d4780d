/** Where a command writes, what it reads from its environment, and what stops it (Ctrl-C). */
export interface Io {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown };
  env: NodeJS.ProcessEnv;
  /** Aborted on SIGINT/SIGTERM: `--watch` then ends with exit code 0. */
  signal: AbortSignal;
}
