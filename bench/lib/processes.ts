/** Child processes for the benchmarks: Node scripts (through tsx) that print JSON lines. */
import { spawn } from 'node:child_process';
import { nodeScriptArgs } from '@zk-recipes/testing';

/**
 * Runs `node [nodeFlags] --conditions=@zk-recipes/source --import tsx <script> ...args` to completion and
 * resolves with its stdout JSON lines; rejects with its stderr tail when it exits non-zero or
 * runs longer than `timeoutMs` (then it is killed by PID).
 */
export function runNodeScript(script: string, args: readonly string[], options: { nodeFlags?: readonly string[]; timeoutMs?: number } = {}): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.nodeFlags ?? []), ...nodeScriptArgs(script), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      err += `\n(killed after ${options.timeoutMs} ms)`;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? 300_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err = (err + chunk).slice(-8000)));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`${script} exited with ${code ?? signal}: ${err.slice(-4000)}`));
      else resolve(out.split('\n').filter((l) => l.trim().startsWith('{')).map((l) => JSON.parse(l) as unknown));
    });
  });
}
