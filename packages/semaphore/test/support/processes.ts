import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { nodeScriptArgs } from '../../../testing/src/nodeScriptArgs.js';

/** The repository root: `tsx` resolves from here. */
export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
/** The semaphore contender script (see its header for arguments). */
export const SEMAPHORE_WORKER = fileURLToPath(new URL('../workers/semaphoreWorker.ts', import.meta.url));

/** One JSON line printed by a worker. */
export interface WorkerLine {
  type?: string;
  [key: string]: unknown;
}

/** A Node worker process and its parsed stdout. */
export interface NodeWorker {
  readonly child: ChildProcess;
  readonly lines: WorkerLine[];
  /** Resolves with the first line matching `predicate`; rejects if the process exits first. */
  waitForLine(predicate: (line: WorkerLine) => boolean): Promise<WorkerLine>;
  /** Writes `go` to stdin (the worker was started with `--wait-go`). */
  go(): void;
  /** All lines once the process exited with status 0; rejects with its stderr otherwise. */
  finished(): Promise<WorkerLine[]>;
  kill(): void;
}

/** Starts `node --conditions=@zk-recipes/source --import tsx <script> ...args` and parses its JSON lines. */
export function spawnNodeWorker(script: string, args: readonly string[]): NodeWorker {
  const child = spawn(process.execPath, [...nodeScriptArgs(script), ...args], {
    cwd: REPO_ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: WorkerLine[] = [];
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface({ input: child.stdout! }).on('line', (text) => {
    try {
      lines.push(JSON.parse(text) as WorkerLine);
    } catch {
      lines.push({ type: 'text', text });
    }
    for (const listener of [...listeners]) listener();
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  let exitCode: number | null | undefined;
  void exited.then((code) => {
    exitCode = code;
    for (const listener of [...listeners]) listener();
  });
  return {
    child,
    lines,
    waitForLine(predicate) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = lines.find(predicate);
          if (found !== undefined) {
            listeners.delete(check);
            resolve(found);
          } else if (exitCode !== undefined) {
            listeners.delete(check);
            reject(new Error(`worker exited (${exitCode}) before the expected line; stderr: ${stderr}`));
          }
        };
        listeners.add(check);
        check();
      });
    },
    go() {
      child.stdin!.write('go\n');
    },
    async finished() {
      const code = await exited;
      if (code !== 0) throw new Error(`worker exited with ${code}; stderr: ${stderr}`);
      return lines;
    },
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
