/**
 * Multi-process proofs: run N Node worker processes (TypeScript, through tsx) that each print JSON
 * lines (critical sections, events), and collect those lines. A worker that fails, or a run that
 * exceeds its timeout, fails the whole run with every worker's stderr in the error.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { guardChild } from './processGuard.js';
import { GO_LINE, isReadyLine } from './workerSide.js';
import { nodeScriptArgs } from './nodeScriptArgs.js';

/** Options of {@link runWorkers}. */
export interface RunWorkersOptions {
  /** Path of the TypeScript (or JavaScript) file each worker runs. */
  script: string;
  /** How many workers. */
  count: number;
  /** Command-line arguments: the same for all, or per worker index. */
  args?: readonly string[] | ((index: number) => readonly string[]);
  /** Extra environment (added to ours). Each worker also gets ZKR_WORKER_INDEX and ZKR_WORKER_NAME. */
  env?: Record<string, string>;
  /** Kill every worker and fail after this long (default 60 s). */
  timeoutMs?: number;
  /** Working directory (default: ours). */
  cwd?: string;
  /**
   * Start line: wait until every worker has printed its ready line (`workerReady()` in the
   * worker), then send them all "go" at once, so contention starts together rather than in
   * spawn order (Node start-up takes ~0.3 s per process).
   */
  barrier?: boolean;
  /**
   * With `barrier`: called once, when every worker is at the start line (or has exited), just
   * before "go" is written to them. What it does happens before any worker passes its start line:
   * release other processes in the same moment (JVMs started with `--wait-go`), or read a clock
   * that is then earlier than every request a worker sends after it. If it throws, no worker is
   * released (they fail when their stdin closes) and the run rejects with its error.
   */
  onRelease?: () => void;
  /** Called for each JSON line as it arrives (e.g. to act while workers run). */
  onLine?: (line: unknown, worker: WorkerResult) => void;
}

/** What one worker printed and how it ended. */
export interface WorkerResult<L = unknown> {
  /** The worker's position, from 0 (also given to it as ZKR_WORKER_INDEX). */
  index: number;
  /** `worker-<index>`, also given to the worker as ZKR_WORKER_NAME. */
  name: string;
  /** Its process id (-1 when the spawn failed). */
  pid: number;
  /** Every stdout line that parsed as JSON, in order (ready lines excluded). */
  lines: L[];
  /** Stdout lines that were not JSON. */
  otherOutput: string[];
  /** Everything it wrote to stderr. */
  stderr: string;
  /** Its exit code; `null` when a signal ended it, -1 when the spawn failed. */
  exitCode: number | null;
  /** The signal that ended it (SIGKILL when another worker failed or the timeout passed); `null` when it exited by itself. */
  signal: NodeJS.Signals | null;
}

/** A run that failed: a worker exited non-zero or the timeout passed. Carries every worker's result. */
export class WorkersFailedError extends Error {
  /** The stable code to branch on. */
  readonly code = 'WORKERS_FAILED';
  /** @param results - Every worker's result, the failed ones and the others, in index order. */
  constructor(
    message: string,
    readonly results: WorkerResult[],
  ) {
    super(message);
    this.name = 'WorkersFailedError';
  }
}

interface Running {
  child: ChildProcess;
  result: WorkerResult;
  exited: Promise<void>;
  ready: Promise<void>;
}

/** Starts one worker; `ready` settles on its ready line (or exit). */
function startWorker(options: RunWorkersOptions, index: number): Running {
  const args = typeof options.args === 'function' ? options.args(index) : (options.args ?? []);
  const name = `worker-${index}`;
  const child = spawn(process.execPath, [...nodeScriptArgs(options.script), ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: { ...process.env, ...options.env, ZKR_WORKER_INDEX: String(index), ZKR_WORKER_NAME: name },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const result: WorkerResult = { index, name, pid: child.pid ?? -1, lines: [], otherOutput: [], stderr: '', exitCode: null, signal: null };
  const disarm = child.pid !== undefined ? guardChild(child.pid) : () => undefined;
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => (result.stderr += chunk));
  child.stdin!.on('error', () => undefined); // A worker that exits early closes its stdin.
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const stdoutDone = new Promise<void>((resolve) => {
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (text) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        result.otherOutput.push(text);
        return;
      }
      if (isReadyLine(parsed)) return markReady();
      result.lines.push(parsed);
      options.onLine?.(parsed, result);
    });
    rl.on('close', resolve);
  });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      result.exitCode = code;
      result.signal = signal;
      disarm();
      markReady();
      // Lines still buffered in the pipe belong to the result.
      void stdoutDone.then(() => resolve());
    });
    child.once('error', (err) => {
      result.stderr += `\nspawn failed: ${err.message}`;
      result.exitCode = -1;
      disarm();
      markReady();
      resolve();
    });
  });
  return { child, result, exited, ready };
}

function describeFailures(results: WorkerResult[], headline: string): string {
  const parts = results
    .filter((r) => r.exitCode !== 0)
    .map((r) => `--- ${r.name} (pid ${r.pid}) exit ${r.exitCode ?? r.signal}:\n${r.stderr.trim() || '(no stderr)'}${r.otherOutput.length > 0 ? `\nstdout: ${r.otherOutput.join('\n')}` : ''}`);
  return `${headline}\n${parts.join('\n')}`;
}

/**
 * Runs `count` workers with `node --conditions=@zk-recipes/source --import tsx <script> ...args`
 * and resolves with each one's JSON lines once all exited 0.
 * @throws {@link WorkersFailedError} when a worker fails (the others are killed) or on timeout.
 */
export async function runWorkers<L = unknown>(options: RunWorkersOptions): Promise<WorkerResult<L>[]> {
  if (!Number.isInteger(options.count) || options.count < 1) throw new RangeError(`runWorkers: count must be a positive integer, got ${options.count}`);
  const timeoutMs = options.timeoutMs ?? 60_000;
  const running: Running[] = [];
  const results = (): WorkerResult[] => running.map((r) => r.result);
  for (let i = 0; i < options.count; i++) running.push(startWorker(options, i));
  const killAll = (): void => {
    for (const r of running) if (r.result.exitCode === null && r.result.signal === null) r.child.kill('SIGKILL');
  };

  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killAll();
  }, timeoutMs);
  try {
    if (options.barrier === true) {
      await Promise.all(running.map((r) => r.ready));
      options.onRelease?.();
      for (const r of running) if (r.result.exitCode === null) r.child.stdin!.write(`${GO_LINE}\n`);
    }
    // The first failure kills the rest: no point waiting for workers that may now wait forever.
    await Promise.all(
      running.map((r) =>
        r.exited.then(() => {
          if (r.result.exitCode !== 0) killAll();
        }),
      ),
    );
  } finally {
    clearTimeout(timer);
    for (const r of running) r.child.stdin!.end();
  }
  const all = results();
  if (timedOut) throw new WorkersFailedError(describeFailures(all, `runWorkers: ${options.script} timed out after ${timeoutMs} ms; all workers killed`), all);
  if (all.some((r) => r.exitCode !== 0)) throw new WorkersFailedError(describeFailures(all, `runWorkers: ${options.script}: a worker failed`), all);
  return all as WorkerResult<L>[];
}
