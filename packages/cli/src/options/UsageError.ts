/** The command line is wrong (unknown option, missing argument, bad value): exit code 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The command whose `--help` says how to use it, if known. */
    readonly command?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}
