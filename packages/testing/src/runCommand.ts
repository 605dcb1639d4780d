/**
 * Runs a command to its end (or to a time bound) and keeps everything it said, so that a test that
 * needs it to succeed can fail with the command, its exit and its whole output rather than a bare
 * "expected 1 to be 0".
 */
import { spawn } from 'node:child_process';

export interface RunCommandOptions {
  cwd: string;
  /** The child's whole environment (default: ours). */
  env?: NodeJS.ProcessEnv;
  /** Killed (SIGKILL) after this long; the result then says `timedOut`. */
  timeoutMs: number;
}

export interface CommandResult {
  /** The command line as typed, for messages. */
  readonly command: string;
  readonly cwd: string;
  /** `null` when a signal ended it. */
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** It did not end by itself within `timeoutMs`. */
  readonly timedOut: boolean;
  readonly durationMs: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `file` with `args` (no shell); resolves when it ended, whatever the outcome. */
export function runCommand(file: string, args: readonly string[], options: RunCommandOptions): Promise<CommandResult> {
  const command = [file, ...args].map(quotedIfNeeded).join(' ');
  const startedAt = Date.now();
  return new Promise((resolve) => {
    const child = spawn(file, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null, extra = '') => {
      clearTimeout(timer);
      resolve({ command, cwd: options.cwd, exitCode, signal, timedOut, durationMs: Date.now() - startedAt, stdout, stderr: stderr + extra });
    };
    child.on('error', (err) => finish(null, null, `\n(could not run: ${err.message})`));
    child.on('close', (exitCode, signal) => finish(exitCode, signal));
  });
}

/** A command that did not exit with 0 by itself: the message holds the command and all it printed. */
export class CommandFailedError extends Error {
  constructor(readonly result: CommandResult) {
    super(describeCommandResult(result));
    this.name = 'CommandFailedError';
  }
}

/** Resolves to the result when the command exited with 0 by itself; otherwise rejects with a {@link CommandFailedError}. */
export async function runCommandOrFail(file: string, args: readonly string[], options: RunCommandOptions): Promise<CommandResult> {
  const result = await runCommand(file, args, options);
  if (result.exitCode !== 0 || result.timedOut) throw new CommandFailedError(result);
  return result;
}

/** The command, where it ran, how it ended, and its output: what a reader of a failed test needs. */
export function describeCommandResult(result: CommandResult): string {
  const ending = result.timedOut
    ? `did not exit within ${result.durationMs} ms (killed)`
    : result.signal !== null
      ? `was killed by ${result.signal}`
      : `exited with code ${result.exitCode}`;
  return [
    `\`${result.command}\` (in ${result.cwd}) ${ending}`,
    `--- stdout ---\n${result.stdout.trimEnd() || '(nothing)'}`,
    `--- stderr ---\n${result.stderr.trimEnd() || '(nothing)'}`,
  ].join('\n');
}

function quotedIfNeeded(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
