/**
 * A failure the CLI itself finds (not the library's): it exits with 1 and prints `code: message`,
 * like a library error.
 */
export class CliError extends Error {
  constructor(
    readonly code: 'NOT_A_LOCK' | 'NOT_A_LOCK_NODE' | 'NO_NODE',
    message: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
