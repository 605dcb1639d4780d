/**
 * Read/write lock benchmark: zk-recipes' InterProcessReadWriteLock side by side with Apache
 * Curator 5.4's InterProcessReadWriteLock, in one run, against one ZooKeeper server.
 *
 * Each mix runs R reader and W writer processes (each its own ZooKeeper session), every one looping
 * `iterations` times: acquire → hold `holdMs` → release. All processes of a mix start at one
 * wall-clock instant (after their start-up), and throughput is critical sections per second over
 * the span from the first section's start to the last section's end. Every run is also checked:
 * a write section overlapping any other section fails the benchmark.
 *
 * Usage: node --conditions=@zk-recipes/source --import tsx bench/rwlock.ts [--iterations N] [--hold-ms N] [--rounds 3] [--warmup-rounds 1]
 * With several rounds (ours and Curator's alternate), the table shows each library's median round:
 * on a shared machine one round can be skewed by someone else's load.
 * Uses ZK_CONNECT when set; otherwise starts a throw-away ZooKeeper server.
 * Prints a markdown table; with --json, also one JSON line per result.
 */
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import { fourLetterWord, nodeScriptArgs, spawnCuratorWorker, TestingServer } from '@zk-recipes/testing';
import { numberFlag } from './lib/flags.js';

interface Mix {
  name: string;
  readers: number;
  writers: number;
}

interface Section {
  lock: 'read' | 'write';
  start: bigint;
  end: bigint;
}

/** One measured run. */
export interface RwBenchResult {
  mix: string;
  library: 'zk-recipes' | 'Curator 5.4';
  sections: number;
  spanMs: number;
  sectionsPerSecond: number;
  maxConcurrentReaders: number;
  /**
   * Requests the ZooKeeper server received during the run, per critical section (its `mntr`
   * packets-received counter; connects, pings and closes included). On a shared machine throughput
   * follows everyone else's load; this shows the protocol's cost and does not.
   */
  requestsPerSection: number;
  /** Sections per second of every measured round (the row shows the median round). */
  perRound?: number[];
}

export const RW_MIXES: readonly Mix[] = [
  { name: '6 readers + 2 writers', readers: 6, writers: 2 },
  { name: 'write-heavy: 2 readers + 6 writers', readers: 2, writers: 6 },
];

const WORKER = fileURLToPath(new URL('../packages/read-write-lock/test/workers/rwWorker.ts', import.meta.url));
/** Enough for 8 tsx or JVM start-ups on two busy cores; a late process just starts late. */
const START_DELAY_MS = 8000;

/** Runs every mix for both libraries and returns the results (ours first in each mix). */
export async function runRwLockBench(
  connectString: string,
  options: { iterations?: number; holdMs?: number; rounds?: number; warmupRounds?: number } = {},
): Promise<RwBenchResult[]> {
  const iterations = options.iterations ?? 100;
  const holdMs = options.holdMs ?? 1;
  const rounds = options.rounds ?? 3;
  const results: RwBenchResult[] = [];
  const base = `/zk-recipes-bench/rwlock-${Date.now().toString(36)}`;
  // Discarded: a fresh server JVM is still JIT-compiling (C2) during the first runs.
  for (let w = 0; w < (options.warmupRounds ?? 1); w++) {
    await runOurs(connectString, `${base}/warmup-ours-${w}`, RW_MIXES[0]!, iterations, holdMs);
    await runCurator(connectString, `${base}/warmup-curator-${w}`, RW_MIXES[0]!, iterations, holdMs);
  }
  for (const [m, mix] of RW_MIXES.entries()) {
    const ours: RwBenchResult[] = [];
    const theirs: RwBenchResult[] = [];
    for (let round = 0; round < rounds; round++) {
      ours.push(await runOurs(connectString, `${base}/ours-${m}-${round}`, mix, iterations, holdMs));
      theirs.push(await runCurator(connectString, `${base}/curator-${m}-${round}`, mix, iterations, holdMs));
    }
    results.push(median(ours), median(theirs));
  }
  return results;
}

/** The round with the median throughput, with every round's figure. */
function median(results: readonly RwBenchResult[]): RwBenchResult {
  const sorted = [...results].sort((a, b) => a.sectionsPerSecond - b.sectionsPerSecond);
  return { ...sorted[(sorted.length - 1) >> 1]!, perRound: results.map((r) => Math.round(r.sectionsPerSecond)) };
}

async function runOurs(connectString: string, path: string, mix: Mix, iterations: number, holdMs: number): Promise<RwBenchResult> {
  const packetsBefore = await packetsReceived(connectString);
  const startAt = String(Date.now() + START_DELAY_MS);
  const modes = [...Array<'read'>(mix.readers).fill('read'), ...Array<'write'>(mix.writers).fill('write')];
  const outputs = await Promise.all(
    modes.map((mode) => runNode([WORKER, connectString, path, mode, String(iterations), String(holdMs), 'zk-recipes', startAt])),
  );
  return measure(mix, 'zk-recipes', outputs.flat(), (await packetsReceived(connectString)) - packetsBefore);
}

async function runCurator(connectString: string, path: string, mix: Mix, iterations: number, holdMs: number): Promise<RwBenchResult> {
  const packetsBefore = await packetsReceived(connectString);
  const startAt = String(Date.now() + START_DELAY_MS);
  const modes = [...Array<string>(mix.readers).fill('rw-read'), ...Array<string>(mix.writers).fill('rw-write')];
  const jvms = await Promise.all(
    modes.map((mode) => spawnCuratorWorker(['--start-at', startAt, mode, connectString, path, String(iterations), String(holdMs)])),
  );
  let outputs: Array<readonly unknown[]>;
  try {
    outputs = await Promise.all(jvms.map((jvm) => jvm.finished(300_000)));
  } finally {
    await Promise.all(jvms.map((jvm) => jvm.stop()));
  }
  return measure(mix, 'Curator 5.4', outputs.flat(), (await packetsReceived(connectString)) - packetsBefore);
}

/** The first server's count of packets received (`mntr`), or NaN when it does not answer. */
async function packetsReceived(connectString: string): Promise<number> {
  const [host, port] = connectString.split(',')[0]!.split('/')[0]!.split(':');
  try {
    const mntr = await fourLetterWord(host!, Number(port), 'mntr');
    return Number(/^zk_packets_received\s+(\d+)/m.exec(mntr)?.[1] ?? Number.NaN);
  } catch {
    return Number.NaN;
  }
}

function measure(mix: Mix, library: RwBenchResult['library'], lines: readonly unknown[], packets: number): RwBenchResult {
  const sections: Section[] = [];
  for (const line of lines) {
    const l = line as { type?: string; lock?: string; start?: string; end?: string };
    if (l.type === 'section' && (l.lock === 'read' || l.lock === 'write')) {
      sections.push({ lock: l.lock, start: BigInt(l.start!), end: BigInt(l.end!) });
    }
  }
  sections.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  // Correctness first: a benchmark of a broken lock measures nothing.
  for (let i = 0; i < sections.length; i++) {
    const a = sections[i]!;
    for (let j = i + 1; j < sections.length && sections[j]!.start < a.end; j++) {
      if (a.lock === 'write' || sections[j]!.lock === 'write') throw new Error(`${library}, ${mix.name}: a write section overlaps another section`);
    }
  }
  const first = sections[0]!.start;
  const last = sections.reduce((max, s) => (s.end > max ? s.end : max), 0n);
  const spanMs = Number(last - first) / 1e6;
  return {
    mix: mix.name,
    library,
    sections: sections.length,
    spanMs,
    sectionsPerSecond: (sections.length * 1000) / spanMs,
    maxConcurrentReaders: maxConcurrentReaders(sections),
    requestsPerSection: packets / sections.length,
  };
}

function maxConcurrentReaders(sections: readonly Section[]): number {
  const events: Array<[bigint, number]> = [];
  for (const s of sections) if (s.lock === 'read') events.push([s.start, 1], [s.end, -1]);
  events.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
  let current = 0;
  let max = 0;
  for (const [, delta] of events) max = Math.max(max, (current += delta));
  return max;
}

function runNode(args: readonly string[]): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeScriptArgs(args[0]!), ...args.slice(1)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) reject(new Error(`rwWorker exited with ${code}: ${err.slice(-2000)}`));
      else resolve(out.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as unknown));
    });
  });
}

/** The results as a markdown table, with our throughput relative to Curator's per mix. */
export function rwBenchTable(results: readonly RwBenchResult[], iterations: number, holdMs: number): string {
  const rows = [
    `Read/write lock: each process loops ${iterations} x (acquire, hold ${holdMs} ms, release); one ZooKeeper session per process.`,
    '',
    '| mix | library | critical sections | span (ms) | sections/s (median round) | per round | vs Curator | max concurrent readers | ZooKeeper requests / section |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    const curator = results.find((c) => c.mix === r.mix && c.library === 'Curator 5.4');
    const ratio = curator === undefined ? '' : `${(r.sectionsPerSecond / curator.sectionsPerSecond).toFixed(2)}x`;
    rows.push(
      `| ${r.mix} | ${r.library} | ${r.sections} | ${r.spanMs.toFixed(0)} | ${r.sectionsPerSecond.toFixed(0)} | ${(r.perRound ?? []).join(', ')} | ${ratio} | ${r.maxConcurrentReaders} | ${r.requestsPerSection.toFixed(1)} |`,
    );
  }
  return rows.join('\n');
}

/** The machine's load: on a shared machine it decides the throughput more than the lock does. */
function loadAverage(): string {
  return loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const flag = (name: string, fallback: number) => numberFlag(argv, name, fallback);
  const iterations = flag('--iterations', 100);
  const holdMs = flag('--hold-ms', 1);
  const rounds = flag('--rounds', 3);
  const warmupRounds = flag('--warmup-rounds', 1);
  const explicit = process.env['ZK_CONNECT'];
  const server = explicit === undefined || explicit === '' ? await TestingServer.start() : undefined;
  try {
    const loadBefore = loadAverage();
    const results = await runRwLockBench(explicit || server!.connectString, { iterations, holdMs, rounds, warmupRounds });
    process.stdout.write(`${rwBenchTable(results, iterations, holdMs)}\n\n`);
    process.stdout.write(`${cpus().length} CPUs; load average (1/5/15 min) before: ${loadBefore}, after: ${loadAverage()}; ${warmupRounds} warm-up round(s) of the first mix discarded, then ${rounds} measured round(s), ours and Curator's alternating.\n`);
    if (argv.includes('--json')) for (const r of results) process.stdout.write(`${JSON.stringify(r)}\n`);
  } finally {
    await server?.stop();
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main();
}
