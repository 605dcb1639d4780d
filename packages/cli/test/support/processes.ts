/**
 * The CLI tests' processes: the `zk-recipes` CLI run from its TypeScript source (as a user's shell
 * runs the bin), and contender processes holding or waiting for locks, each with a session of
 * its own. Every wait is for a line a process printed, never for a timer (a bound only fails the
 * test with what was printed).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { nodeScriptArgs, testConnectString } from '@zk-recipes/testing';

const BIN = fileURLToPath(new URL('../../src/bin.ts', import.meta.url));
const CONTENDER = fileURLToPath(new URL('../workers/contender.ts', import.meta.url));
const BOUND_MS = 30_000;

/** How a finished CLI run ended and what it printed. */
export interface CliResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** stdout exactly as written, byte for byte (what a terminal would have been sent). */
  stdoutBytes: Buffer;
  stderrBytes: Buffer;
}

/** The environment of a CLI run: ours, without a ZK_CONNECT that would stand in for --connect. */
function cliEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  if (!('ZK_CONNECT' in extra)) delete env['ZK_CONNECT'];
  return env;
}

/** Runs `zk-recipes <args>` to its end. */
export async function runCli(args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  const cli = new LineProcess(nodeScriptArgs(BIN), args, cliEnv(env), 'zk-recipes');
  cli.child.stdin!.end();
  const timer = setTimeout(() => cli.child.kill('SIGKILL'), BOUND_MS);
  const { exitCode } = await cli.exited;
  clearTimeout(timer);
  return { exitCode, stdout: cli.stdout, stderr: cli.stderr, stdoutBytes: cli.stdoutBytes, stderrBytes: cli.stderrBytes };
}

/** Starts `zk-recipes <args>` and leaves it running (`--watch`). */
export function startCli(args: readonly string[]): LineProcess {
  return new LineProcess(nodeScriptArgs(BIN), args, cliEnv({}), 'zk-recipes');
}

/** `--connect <the test server>`. */
export function connectArgs(): string[] {
  return ['--connect', testConnectString()];
}

/** What a contender prints. */
export type ContenderLine = { type: 'session'; sessionId: string; pid: number } | { type: 'acquired'; node: string } | { type: 'revoked' } | { type: 'released' };

/** A contender process (test/workers/contender.ts). */
export class Contender {
  readonly process: LineProcess;
  private constructor(process: LineProcess, readonly sessionId: string, readonly pid: number) {
    this.process = process;
  }

  /** Starts a contender and waits until it is connected (it may then wait for its lock). */
  static async start(path: string, recipe: 'mutex' | 'read' | 'write' | 'semaphore', options: object = {}): Promise<Contender> {
    const process = new LineProcess(nodeScriptArgs(CONTENDER), [testConnectString(), path, recipe, JSON.stringify(options)], { ...globalThis.process.env }, `contender ${recipe}`);
    const line = (await process.waitForLine((l) => l.type === 'session')) as Extract<ContenderLine, { type: 'session' }>;
    return new Contender(process, line.sessionId, line.pid);
  }

  /** Its node once it holds. */
  async acquired(): Promise<string> {
    return ((await this.process.waitForLine((l) => l.type === 'acquired')) as { node: string }).node;
  }

  async release(): Promise<void> {
    this.process.send('release');
    await this.process.waitForLine((l) => l.type === 'released');
  }

  async stop(): Promise<void> {
    await this.process.stop();
  }
}

/** A child process whose stdout is read as JSON lines (non-JSON lines kept in `stdout`). */
export class LineProcess {
  readonly child: ChildProcess;
  readonly lines: Array<Record<string, unknown>> = [];
  stdout = '';
  private readonly stdoutChunks: Buffer[] = [];
  private readonly stderrChunks: Buffer[] = [];
  readonly exited: Promise<{ exitCode: number | null; signal: NodeJS.Signals | null }>;
  private readonly waiters = new Set<() => void>();

  constructor(nodeArgs: string[], args: readonly string[], env: NodeJS.ProcessEnv, private readonly name: string) {
    this.child = spawn(process.execPath, [...nodeArgs, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdin!.on('error', () => undefined);
    this.child.stderr!.on('data', (chunk: Buffer) => this.stderrChunks.push(chunk));
    this.child.stdout!.on('data', (chunk: Buffer) => this.stdoutChunks.push(chunk));
    const rl = createInterface({ input: this.child.stdout! });
    rl.on('line', (text) => {
      this.stdout += `${text}\n`;
      try {
        const parsed: unknown = JSON.parse(text);
        if (typeof parsed === 'object' && parsed !== null) this.lines.push(parsed as Record<string, unknown>);
      } catch {
        // text output
      }
      for (const wake of [...this.waiters]) wake();
    });
    const stdoutClosed = new Promise<void>((resolve) => rl.on('close', resolve));
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (exitCode, signal) => {
        void stdoutClosed.then(() => {
          for (const wake of [...this.waiters]) wake();
          resolve({ exitCode, signal });
        });
      });
    });
  }

  /** Everything written to stdout so far, as bytes. */
  get stdoutBytes(): Buffer {
    return Buffer.concat(this.stdoutChunks);
  }

  get stderrBytes(): Buffer {
    return Buffer.concat(this.stderrChunks);
  }

  get stderr(): string {
    return this.stderrBytes.toString('utf8');
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The first line (from the start) that `matches`; fails with all output if the process ends first or after the bound. */
  waitForLine(matches: (line: Record<string, unknown>) => boolean, from = 0): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.lines.slice(from).find(matches);
        if (found !== undefined) return done(() => resolve(found));
        if (!this.running) return done(() => reject(new Error(`${this.name} ended without the line awaited\n${this.describe()}`)));
      };
      const timer = setTimeout(() => done(() => reject(new Error(`${this.name}: no such line within ${BOUND_MS} ms\n${this.describe()}`))), BOUND_MS);
      const done = (settle: () => void) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        settle();
      };
      this.waiters.add(check);
      check();
    });
  }

  send(line: string): void {
    this.child.stdin!.write(`${line}\n`);
  }

  /** Ends it: stdin closed (a contender closes its session and exits), SIGKILL if it lingers. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.child.stdin!.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(timer);
  }

  describe(): string {
    return `--- stdout ---\n${this.stdout.trimEnd() || '(nothing)'}\n--- stderr ---\n${this.stderr.trimEnd() || '(nothing)'}`;
  }
}
