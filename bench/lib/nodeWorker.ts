/** A Node worker script of the benchmarks as a child process that prints one JSON object a line. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { nodeScriptArgs } from '@zk-recipes/testing';

export interface NodeWorker {
  child: ChildProcess;
  /** The tail of its stderr so far. */
  stderr(): string;
  /** Its exit code, once it exited and its stdout was read to the end. */
  exited: Promise<number | null>;
}

/**
 * Starts `script` (through tsx, as `nodeScriptArgs` says) with stdio piped and ZKR_WORKER_NAME
 * set; every stdout line that parses as JSON goes to `onLine`, the rest is dropped.
 */
export function spawnNodeWorker(script: string, args: readonly string[], name: string, onLine: (line: unknown) => void): NodeWorker {
  const child = spawn(process.execPath, [...nodeScriptArgs(script), ...args], {
    env: { ...process.env, ZKR_WORKER_NAME: name },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  // A worker that exits early closes its stdin: a late write must not crash the bench.
  child.stdin!.on('error', () => undefined);
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr = (stderr + c).slice(-8000)));
  const stdoutClosed = new Promise<void>((resolve) => {
    createInterface({ input: child.stdout! })
      .on('line', (text) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          return;
        }
        onLine(parsed);
      })
      .on('close', resolve);
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => void stdoutClosed.then(() => resolve(code))));
  return { child, stderr: () => stderr, exited };
}
