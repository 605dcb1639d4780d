/** The codes of the failures the CLI itself finds (docs/errors.md, "The zk-recipes CLI"). */
export type CliErrorCode = 'NOT_A_LOCK' | 'NOT_A_LOCK_NODE' | 'NO_NODE';

/**
 * A failure the CLI itself finds (not the library's): it prints `code: message`, like a library
 * error, and exits with the code's exit code (`CLI_ERROR_EXIT`). The message quotes node names
 * as found (cut to a bound); the CLI escapes it when it prints it.
 */
export class CliError extends Error {
  constructor(
    /** The stable code of the failure. */
    readonly code: CliErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
