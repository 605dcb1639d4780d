/**
 * The demo's worker processes (examples/workers/*): each a child of the demo with a ZooKeeper
 * session of its own. They report JSON lines (examples/workers/demoWorker.ts) and take commands
 * on stdin. Every process started here is remembered until it exits, so that the demo can stop
 * all of them by PID however it ends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** One event a worker reported: `type`, the worker's `name`, `at` (CLOCK_MONOTONIC ns) and the event's own fields. */
export interface WorkerLine {
  type: string;
  name: string;
  at: bigint;
  [field: string]: unknown;
}

const running = new Set<ChildProcess>();

/** SIGKILLs every worker still running (by PID); returns how many there were. */
export function killAllWorkers(): number {
  let killed = 0;
  for (const child of running) {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      process.kill(child.pid, 'SIGKILL');
      killed++;
    }
  }
  return killed;
}
/** Remembers a child process the demo starts itself (not a worker), to stop it with the workers. */
export function track<C extends ChildProcess>(child: C): C {
  running.add(child);
  child.once('close', () => running.delete(child));
  return child;
}

// A demo that crashes or is interrupted leaves no worker behind.
process.on('exit', killAllWorkers);

export class WorkerProcess {
  readonly lines: WorkerLine[] = [];
  readonly pid: number;
  /** Resolves when the process has exited: with the CLOCK_MONOTONIC time the demo saw it go. */
  readonly exited: Promise<bigint>;
  private readonly child: ChildProcess;
  private readonly listeners = new Set<(line: WorkerLine) => void>();
  private stderr = '';
  private ended: string | undefined;

  constructor(
    readonly name: string,
    script: string,
    args: readonly string[],
  ) {
    const file = fileURLToPath(new URL(`../workers/${script}`, import.meta.url));
    this.child = spawn(process.execPath, ['--conditions=@zk-recipes/source', '--import', 'tsx', file, ...args], {
      env: { ...process.env, DEMO_WORKER_NAME: name },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    track(this.child);
    this.pid = this.child.pid ?? -1;
    this.child.stdin!.on('error', () => undefined); // it may exit before reading what we sent
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    createInterface({ input: this.child.stdout! }).on('line', (text) => {
      const parsed = JSON.parse(text) as Record<string, unknown>;
      const line = { ...parsed, at: BigInt(parsed.at as string) } as WorkerLine;
      this.lines.push(line);
      for (const listener of this.listeners) listener(line);
    });
    this.exited = new Promise((resolve) => {
      this.child.once('error', (err) => (this.ended = `could not start: ${err.message}`));
      this.child.once('close', (code, signal) => {
        const at = process.hrtime.bigint();
        this.ended ??= signal !== null ? `killed by ${signal}` : `exited with ${code}`;
        if (code !== 0 && signal === null) this.ended += this.stderr.trim() === '' ? '' : `:\n${this.stderr.trim()}`;
        resolve(at);
        for (const listener of this.listeners) listener({ type: 'exit', name, at });
      });
    });
  }

  /** Calls `listener` with each line from now on (and a last `exit` line when the process ends). */
  onLine(listener: (line: WorkerLine) => void): void {
    this.listeners.add(listener);
  }

  /** The first line (already received or to come) that `test` accepts; rejects if the process ends first. */
  next(test: (line: WorkerLine) => boolean, what: string): Promise<WorkerLine> {
    const seen = this.lines.find(test);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const listener = (line: WorkerLine): void => {
        if (line.type === 'exit') reject(new Error(`${this.name} (pid ${this.pid}) ${this.ended} before ${what}`));
        else if (!test(line)) return;
        else resolve(line);
        this.listeners.delete(listener);
      };
      this.listeners.add(listener);
    });
  }

  /** Sends a command line (`go`, `stop`, `downgrade`). */
  send(command: string): void {
    this.child.stdin!.write(`${command}\n`);
  }

  /** SIGKILL, as a crash or `kill -9` would: no chance to close its session. Resolves when it is gone. */
  kill(): Promise<bigint> {
    this.child.kill('SIGKILL');
    return this.exited;
  }

  /** Resolves when it has exited by itself with 0; rejects with how it ended otherwise. */
  async finished(): Promise<void> {
    await this.exited;
    if (this.child.exitCode !== 0) throw new Error(`${this.name} (pid ${this.pid}) ${this.ended}`);
  }
}

/** Starts one worker per name and resolves once each has connected and reported `ready`. */
export async function startWorkers(names: readonly string[], script: string, args: (name: string) => readonly string[]): Promise<WorkerProcess[]> {
  const workers = names.map((name) => new WorkerProcess(name, script, args(name)));
  await Promise.all(workers.map((w) => w.next((line) => line.type === 'ready', 'connecting to ZooKeeper')));
  return workers;
}

/** Rejects with `what` if `promise` has not settled within `ms`: a demo never hangs. */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms / 1000} s`)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
