import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A worker script of this package, by file name (under test/workers/). */
export function workerScript(name: string): string {
  return fileURLToPath(new URL(`../workers/${name}`, import.meta.url));
}

/**
 * Runs one Node worker process (`node --conditions=@zk-recipes/source --import tsx <script> ...args`) to its
 * end and resolves with its JSON stdout lines; rejects if it exits non-zero.
 */
export function runNodeWorker(script: string, args: readonly string[]): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=@zk-recipes/source', '--import', 'tsx', script, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) {
        reject(new Error(`worker ${script} ${args.join(' ')} exited with ${code}: ${err.slice(-2000)}`));
        return;
      }
      resolve(
        out
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line) => JSON.parse(line) as unknown),
      );
    });
  });
}
