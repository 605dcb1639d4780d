/**
 * `npm run bench:wire-floor`: how much of an uncontended acquire + release is the wire client's.
 *
 * Two kinds of process, repetitions interleaved, each one session on one fresh fsync'd server:
 *   bare  node-zookeeper-client alone doing what the cycle sends (create EPHEMERAL_SEQUENTIAL with
 *         the listing pipelined behind it, then delete), with nothing of ours on top
 *   ours  InterProcessMutex acquire + release (compiled packages), each pair in a fresh async context
 * Each runs `--warmup` cycles, then measures `--n` cycles: process.cpuUsage() per cycle. Nothing is
 * printed until the end (a write to stdout between warm-up and measurement makes V8 recompile the
 * stream code shared with the socket inside the measured window: docs/benchmarks.md).
 *
 * Usage: npm run bench:wire-floor -- [--reps 3] [--warmup 10000] [--n 2000]
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { TestingServer } from '@zk-recipes/testing';
import { numberFlag } from './lib/flags.js';
import { median } from './lib/stats.js';

const argv = process.argv.slice(2);

interface WireClient {
  connect(): void;
  close(): void;
  once(event: 'connected', listener: () => void): void;
  mkdirp(path: string, callback: (error: Error | null) => void): void;
  create(path: string, data: Buffer, mode: number, callback: (error: Error | null, path: string) => void): void;
  getChildren(path: string, callback: (error: Error | null, children: string[]) => void): void;
  remove(path: string, version: number, callback: (error: Error | null) => void): void;
}

async function bareCycles(connect: string, warmup: number, n: number): Promise<number> {
  const require = createRequire(fileURLToPath(new URL('../packages/core/package.json', import.meta.url)));
  const zk = require('node-zookeeper-client') as { createClient(cs: string, o: object): WireClient; CreateMode: { EPHEMERAL_SEQUENTIAL: number } };
  const client = zk.createClient(connect, { sessionTimeout: 30_000 });
  await new Promise<void>((resolve) => {
    client.once('connected', resolve);
    client.connect();
  });
  const dir = `/wire-floor/bare-${process.pid}`;
  await new Promise<void>((resolve, reject) => client.mkdirp(dir, (e) => (e ? reject(e) : resolve())));
  const data = Buffer.from('owner');
  const cycle = async (): Promise<void> => {
    const created = new Promise<string>((resolve, reject) =>
      client.create(`${dir}/_c_2f1e9a40-5b7c-4d1e-8f3a-1c2b3d4e5f60-lock-`, data, zk.CreateMode.EPHEMERAL_SEQUENTIAL, (e, p) => (e ? reject(e) : resolve(p))),
    );
    const listed = new Promise<string[]>((resolve, reject) => client.getChildren(dir, (e, c) => (e ? reject(e) : resolve(c))));
    const path = await created;
    await listed;
    await new Promise<void>((resolve, reject) => client.remove(path, -1, (e) => (e ? reject(e) : resolve())));
  };
  const cpuMs = await measure(cycle, warmup, n);
  client.close();
  return cpuMs;
}

async function ourCycles(connect: string, warmup: number, n: number): Promise<number> {
  const { AsyncResource } = await import('node:async_hooks');
  const { ZkSession } = await import('@zk-recipes/core');
  const { InterProcessMutex } = await import('@zk-recipes/mutex');
  const session = await ZkSession.connect({ connectString: connect, sessionTimeoutMs: 30_000 });
  const mutex = new InterProcessMutex(session, `/wire-floor/ours-${process.pid}`);
  const root = new AsyncResource('bench-wire-floor');
  const cycle = (): Promise<void> => root.runInAsyncScope(async () => (await mutex.acquire()).release());
  const cpuMs = await measure(cycle, warmup, n);
  await session.close();
  return cpuMs;
}

async function measure(cycle: () => Promise<void>, warmup: number, n: number): Promise<number> {
  for (let i = 0; i < warmup; i++) await cycle();
  const cpu = process.cpuUsage();
  for (let i = 0; i < n; i++) await cycle();
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000 / n;
}

const child = argv.indexOf('--child');
if (child >= 0) {
  const [kind, connect, warmup, n] = argv.slice(child + 1);
  const run = kind === 'bare' ? bareCycles : ourCycles;
  process.stdout.write(`${await run(connect!, Number(warmup), Number(n))}\n`);
} else {
  const reps = numberFlag(argv, '--reps', 3);
  const warmup = numberFlag(argv, '--warmup', 10_000);
  const n = numberFlag(argv, '--n', 2_000);
  const server = await TestingServer.start();
  const figures: Record<'bare' | 'ours', number[]> = { bare: [], ours: [] };
  try {
    for (let rep = 0; rep < reps; rep++) {
      for (const kind of ['bare', 'ours'] as const) {
        const out = execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', kind, server.connectString, String(warmup), String(n)], { encoding: 'utf8' });
        figures[kind].push(Number(out.trim()));
        console.error(`[bench:wire-floor] rep ${rep + 1}/${reps} ${kind}: ${Number(out.trim()).toFixed(3)} ms per cycle`);
      }
    }
  } finally {
    await server.stop();
  }
  const bare = median(figures.bare);
  const ours = median(figures.ours);
  console.log(`Client CPU per uncontended acquire + release (${warmup} warm-up cycles, ${n} measured, medians of ${reps}):`);
  console.log(`| bare node-zookeeper-client | zk-recipes InterProcessMutex | bare / zk-recipes |`);
  console.log(`|---:|---:|---:|`);
  console.log(`| ${bare.toFixed(3)} ms | ${ours.toFixed(3)} ms | ${(bare / ours).toFixed(2)}x |`);
  console.log(`Per repetition: bare ${figures.bare.map((f) => f.toFixed(3)).join(', ')}; zk-recipes ${figures.ours.map((f) => f.toFixed(3)).join(', ')}.`);
}
