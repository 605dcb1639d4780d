/**
 * Raw hand-off floor across processes: this process's session deletes a node; a watch set by a
 * separate Node process (own session, `watchProcess.ts`) fires. Timed from just before the delete
 * is sent to the watch callback in the other process (CLOCK_MONOTONIC: comparable). Unlike the
 * in-process floor, it includes waking the waiting process: what a lock hand-off between
 * processes pays on top of the server.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { RawZk } from './rawZk.js';
import { nodeScriptArgs } from '@zk-recipes/testing';

const WATCHER = fileURLToPath(new URL('./watchProcess.ts', import.meta.url));

export async function rawCrossProcessDeleteToWatch(connectString: string, dir: string, n: number, warmup: number): Promise<number[]> {
  const child = spawn(process.execPath, [...nodeScriptArgs(WATCHER), connectString], { stdio: ['pipe', 'pipe', 'inherit'] });
  const queue: Array<{ type: string; at?: string }> = [];
  let wake: (() => void) | undefined;
  createInterface({ input: child.stdout! }).on('line', (text) => {
    queue.push(JSON.parse(text) as { type: string; at?: string });
    wake?.();
  });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const next = async (): Promise<{ type: string; at?: string }> => {
    while (queue.length === 0) {
      await Promise.race([new Promise<void>((resolve) => (wake = resolve)), exited.then(() => Promise.reject(new Error('watchProcess exited')))]);
    }
    return queue.shift()!;
  };
  const deleter = await RawZk.connect(connectString);
  try {
    await deleter.mkdirp(dir);
    if ((await next()).type !== 'ready') throw new Error('watchProcess: no ready line');
    const samples: number[] = [];
    for (let i = 0; i < warmup + n; i++) {
      const path = await deleter.createSequential(`${dir}/x-`);
      child.stdin!.write(`${path}\n`);
      const armed = await next();
      if (armed.type !== 'armed') throw new Error(`watchProcess: ${armed.type}`);
      const t0 = process.hrtime.bigint();
      await deleter.delete(path);
      const fired = await next();
      if (fired.type !== 'fired') throw new Error(`watchProcess: ${fired.type}`);
      if (i >= warmup) samples.push(Number(BigInt(fired.at!) - t0));
    }
    return samples;
  } finally {
    deleter.close();
    child.stdin!.end();
    child.kill('SIGTERM');
    await exited;
  }
}
