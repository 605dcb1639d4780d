/**
 * The nemesis's worker processes: unlike {@link runWorkers}, a process may be killed, stopped or
 * replaced mid-run without failing the run. Each line a process prints is handed to `onLine` as
 * it arrives; each process is guarded (SIGKILLed if we die).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { guardChild } from '../processGuard.js';
import { nodeScriptArgs } from '../nodeScriptArgs.js';
import { CALM_LINE, STOP_LINE } from './workerLoop.js';

/** One JSON line a nemesis worker printed (see {@link runNemesisWorker} for the types). */
export interface WorkerLine {
  /** What the line reports: `session`, `granted`, `section`... */
  type: string;
  /** The name of the process that printed it. */
  worker: string;
  /** The type's own fields (times as decimal strings of CLOCK_MONOTONIC ns). */
  [key: string]: unknown;
}

/**
 * One nemesis worker process (`node` running the worker script, with `ZKR_WORKER_NAME` and
 * `ZKR_WORKER_INDEX` set): its parsed stdout goes to `onLine`, its exit is recorded, and it may be
 * signalled, calmed and stopped.
 */
export class NemesisProcess {
  /** The child process. */
  readonly child: ChildProcess;
  /** Its pid (-1 when the spawn failed). */
  readonly pid: number;
  /** The tail of its stderr (the last 20000 characters). */
  stderr = '';
  /** CLOCK_MONOTONIC ns when the exit was seen; undefined while running. */
  exitedAt: bigint | undefined;
  /** Its exit code; `null` while running or when a signal ended it, -1 when the spawn failed. */
  exitCode: number | null = null;
  /** The signal that ended it; `null` while running or when it exited by itself. */
  exitSignal: NodeJS.Signals | null = null;
  /** Resolves once the process exited and its stdout is drained. */
  readonly exited: Promise<void>;
  private stopped = false;

  /**
   * Starts `script` with `args`; every JSON line with a string `type` it prints goes to `onLine`.
   * @param name - The process's name (`ZKR_WORKER_NAME`); a replacement gets a name of its own.
   * @param slot - Which of the run's worker slots it fills (`ZKR_WORKER_INDEX`); a replacement takes its predecessor's.
   */
  constructor(
    readonly name: string,
    readonly slot: number,
    script: string,
    args: readonly string[],
    onLine: (line: WorkerLine, from: NemesisProcess) => void,
  ) {
    this.child = spawn(process.execPath, [...nodeScriptArgs(script), ...args], {
      env: { ...process.env, ZKR_WORKER_NAME: name, ZKR_WORKER_INDEX: String(slot) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.pid = this.child.pid ?? -1;
    const disarm = this.pid > 0 ? guardChild(this.pid) : () => undefined;
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (chunk: string) => {
      // Keep the tail only: a long run must not grow without bound.
      this.stderr = (this.stderr + chunk).slice(-20_000);
    });
    this.child.stdin!.on('error', () => undefined);
    const drained = new Promise<void>((resolve) => {
      const rl = createInterface({ input: this.child.stdout! });
      rl.on('line', (text) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          return;
        }
        if (typeof parsed === 'object' && parsed !== null && typeof (parsed as WorkerLine).type === 'string') onLine(parsed as WorkerLine, this);
      });
      rl.on('close', resolve);
    });
    this.exited = new Promise<void>((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exitedAt = process.hrtime.bigint();
        this.exitCode = code;
        this.exitSignal = signal;
        disarm();
        void drained.then(() => resolve());
      });
      this.child.once('error', (err) => {
        this.stderr += `\nspawn failed: ${err.message}`;
        this.exitedAt ??= process.hrtime.bigint();
        this.exitCode = -1;
        disarm();
        resolve();
      });
    });
  }

  /** True until its exit (or a failed spawn) was seen. */
  get running(): boolean {
    return this.exitedAt === undefined;
  }

  /** Sends `sig` (SIGSTOP, SIGCONT, SIGKILL...) while it runs; does nothing once it exited. */
  signal(sig: NodeJS.Signals): void {
    if (this.running) this.child.kill(sig);
  }

  /** Tells the worker the faults are over (no more long holds). */
  calm(): void {
    if (this.running && !this.stopped) this.child.stdin!.write(`${CALM_LINE}\n`);
  }

  /** Asks the worker to finish (stop line), SIGKILLs it after `timeoutMs`. Resolves true if it stopped by itself. */
  async stop(timeoutMs: number): Promise<boolean> {
    if (!this.running) return this.exitCode === 0;
    if (!this.stopped) {
      this.stopped = true;
      this.child.kill('SIGCONT'); // in case a fault left it stopped
      this.child.stdin!.write(`${STOP_LINE}\n`);
      this.child.stdin!.end();
    }
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      this.exited.then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeoutMs))),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      this.child.kill('SIGKILL');
      await this.exited;
      return false;
    }
    return this.exitCode === 0;
  }
}
