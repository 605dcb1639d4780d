/**
 * Read/write mix benchmark: readers, a writer and a downgrading writer (see the worker,
 * `packages/read-write-lock/test/workers/mixWorker.ts`) as loops in one process, against the same
 * loops one per process, and the same process without the downgrade. A free lock must reach its
 * next waiter whether that waiter is a loop of the same process or of another: the same-process
 * figures should be of the order of the cross-process ones, not 100x below.
 *
 * Usage: node --conditions=@zk-recipes/source --import tsx bench/rwmix.ts [--seconds 20] [--rounds 2] [--hold-ms 1] [--json]
 * Layouts alternate within each round. Uses ZK_CONNECT when set; otherwise starts a throw-away server.
 */
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { TestingServer } from '@zk-recipes/testing';
import { runNodeScript } from './lib/processes.js';
import { median } from './lib/stats.js';
import { numberFlag } from './lib/flags.js';

const WORKER = fileURLToPath(new URL('../packages/read-write-lock/test/workers/mixWorker.ts', import.meta.url));
/** Enough for 4 tsx start-ups on two busy cores. */
const START_DELAY_MS = 5000;

interface Layout {
  name: string;
  /** The roles of each process. */
  processes: ReadonlyArray<readonly string[]>;
}

const LAYOUTS: readonly Layout[] = [
  { name: 'one process: 2 readers, a writer, a downgrading writer', processes: [['read', 'read', 'write', 'downgrade']] },
  { name: 'the same loops, one process each', processes: [['read'], ['read'], ['write'], ['downgrade']] },
  { name: 'one process, no downgrade: 2 readers, 2 writers', processes: [['read', 'read', 'write', 'write']] },
];

interface Section {
  lock: 'read' | 'write';
  start: bigint;
  end: bigint;
}

export interface RwMixResult {
  layout: string;
  seconds: number;
  reads: number;
  writes: number;
  readsPerSecond: number;
  writesPerSecond: number;
}

function runWorker(connectString: string, path: string, roles: readonly string[], seconds: number, holdMs: number, startAt: number): Promise<unknown[]> {
  return runNodeScript(WORKER, [connectString, path, roles.join(','), `${seconds}s`, String(holdMs), String(startAt)]);
}

/** A write section overlapping any other section: the benchmark fails. */
function assertExclusive(sections: readonly Section[], layout: string): void {
  const sorted = [...sections].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i + 1; j < sorted.length && sorted[j]!.start < sorted[i]!.end; j++) {
      if (sorted[i]!.lock === 'write' || sorted[j]!.lock === 'write') throw new Error(`${layout}: a write section overlaps another section`);
    }
  }
}

async function runLayout(connectString: string, layout: Layout, round: number, seconds: number, holdMs: number): Promise<RwMixResult> {
  const path = `/zkr-bench/rwmix-${process.pid}-${round}-${LAYOUTS.indexOf(layout)}`;
  const startAt = Date.now() + START_DELAY_MS;
  const outputs = await Promise.all(layout.processes.map((roles) => runWorker(connectString, path, roles, seconds, holdMs, startAt)));
  const sections: Section[] = [];
  for (const line of outputs.flat()) {
    const l = line as { type?: string; lock?: 'read' | 'write'; start?: string; end?: string };
    if (l.type === 'section') sections.push({ lock: l.lock!, start: BigInt(l.start!), end: BigInt(l.end!) });
  }
  assertExclusive(sections, layout.name);
  const reads = sections.filter((s) => s.lock === 'read').length;
  const writes = sections.length - reads;
  return { layout: layout.name, seconds, reads, writes, readsPerSecond: reads / seconds, writesPerSecond: writes / seconds };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const flag = (name: string, fallback: number) => numberFlag(argv, name, fallback);
  const seconds = flag('--seconds', 20);
  const rounds = flag('--rounds', 2);
  const holdMs = flag('--hold-ms', 1);
  const explicit = process.env['ZK_CONNECT'];
  const server = explicit === undefined || explicit === '' ? await TestingServer.start() : undefined;
  const loadBefore = loadavg().map((l) => l.toFixed(1)).join(' / ');
  try {
    const results: RwMixResult[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const layout of LAYOUTS) results.push(await runLayout(explicit || server!.connectString, layout, round, seconds, holdMs));
    }
    const rows = [
      `Read/write mix, ${seconds} s per run, ${holdMs} ms holds, ${rounds} round(s) (layouts alternate; medians (the lower middle of an even count), every round in brackets):`,
      '',
      '| layout | reads/s | writes/s |',
      '|---|---:|---:|',
    ];
    for (const layout of LAYOUTS) {
      const mine = results.filter((r) => r.layout === layout.name);
      const fmt = (xs: number[]) => `${median(xs).toFixed(0)} (${xs.map((x) => x.toFixed(0)).join(', ')})`;
      rows.push(`| ${layout.name} | ${fmt(mine.map((r) => r.readsPerSecond))} | ${fmt(mine.map((r) => r.writesPerSecond))} |`);
    }
    process.stdout.write(`${rows.join('\n')}\n\n${cpus().length} CPUs; load average before: ${loadBefore}, after: ${loadavg().map((l) => l.toFixed(1)).join(' / ')}.\n`);
    if (argv.includes('--json')) for (const r of results) process.stdout.write(`${JSON.stringify(r)}\n`);
  } finally {
    await server?.stop();
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main();
}
