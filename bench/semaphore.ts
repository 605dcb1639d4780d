/**
 * Semaphore benchmark: zk-recipes' InterProcessSemaphore (default `queue` layout, and the
 * Curator-compatible `curator` layout) side by side with Apache Curator 5.4's
 * InterProcessSemaphoreV2, in one run, against one ZooKeeper server.
 *
 * P processes (each its own ZooKeeper session) loop `iterations` times: acquire one lease → hold
 * `holdMs` → release, on a semaphore of L leases. Every process of a run connects first and then
 * starts on one "go" (so start-up time is not measured). Throughput is leases held per second over
 * the span from the first section's start to the last section's end. Release → next holder is the
 * time from a section's end while all leases were in use to the next waiting process's start
 * (it includes the release's own round trip). Every run is also checked: more than L sections open
 * at once fails the benchmark.
 *
 * Two more rows are not semaphores but bounds, run by the same processes on the raw client: the
 * machine's ceiling (CEILING) and the herd-free bound (HERD_FREE_BOUND).
 *
 * Usage: node --conditions=@zk-recipes/source --import tsx bench/semaphore.ts [--processes 12] [--iterations 50]
 *        [--hold-ms 2] [--leases 3] [--rounds 3] [--warmup-rounds 1] [--json]
 * Uses ZK_CONNECT when set; otherwise starts a throw-away ZooKeeper server. Prints a markdown table.
 */
import { fileURLToPath } from 'node:url';
import { spawnCuratorWorker, TestingServer } from '@zk-recipes/testing';
import { SEMAPHORE_WORKER, spawnNodeWorker } from '../packages/semaphore/test/support/processes.js';
import { numberFlag } from './lib/flags.js';
import {
  handoffLatenciesMs,
  maxConcurrency,
  percentile,
  sectionsOf,
  timeAtConcurrency,
  type Section,
} from '../packages/semaphore/test/support/sections.js';

/**
 * The machine's ceiling, not a semaphore: the same processes create a node with the listing
 * pipelined, hold, and delete it, waiting for nobody (bench/raw/cycleWorker.ts). Every queue-based
 * semaphore does at least this per section, so no semaphore can beat it here.
 */
const CEILING = 'raw ceiling: create + listing, hold, delete; no waiting, no exclusion';
const CYCLE_WORKER = fileURLToPath(new URL('./raw/cycleWorker.ts', import.meta.url));
/**
 * The least a herd-free FIFO queue does with leases handed over in parallel: the raw lock loop
 * with L slots, which watches the node L places ahead and lists when it goes
 * (bench/raw/lockLoopWorker.ts). It leaves a lease idle on every out-of-order release, so it is a
 * bound on such designs, not a semaphore.
 */
const HERD_FREE_BOUND = 'herd-free bound: watch the node L places ahead, list when it goes (idles a lease on out-of-order releases)';
const LOCK_LOOP_WORKER = fileURLToPath(new URL('./raw/lockLoopWorker.ts', import.meta.url));

export interface SemaphoreBenchOptions {
  processes?: number;
  iterations?: number;
  holdMs?: number;
  leases?: number;
  /** Measured rounds (each runs every contender); the table shows each one's median round. */
  rounds?: number;
  /** Rounds run first and discarded: a fresh server JVM is still JIT-compiling (C2) for a while. */
  warmupRounds?: number;
}

/** One measured run. */
export interface SemaphoreBenchResult {
  library: "zk-recipes (layout 'queue', default)" | "zk-recipes (layout 'curator')" | 'Curator 5.4 InterProcessSemaphoreV2' | typeof CEILING | typeof HERD_FREE_BOUND;
  sections: number;
  spanMs: number;
  sectionsPerSecond: number;
  maxConcurrent: number;
  /** Share of the span during which every lease was in use. */
  allLeasesInUse: number;
  handoffP50Ms: number;
  handoffP99Ms: number;
  handoffs: number;
  /** Sections per second of every measured round, in order (the row shows the median round). */
  perRound?: number[];
}

/**
 * Runs `warmupRounds` discarded rounds, then `rounds` measured ones (each: the contenders one
 * after the other, so the load of a shared machine hits all of them alike), and returns each
 * contender's median round.
 */
export async function runSemaphoreBench(connectString: string, options: SemaphoreBenchOptions = {}): Promise<SemaphoreBenchResult[]> {
  const rounds = options.rounds ?? 3;
  const warmupRounds = options.warmupRounds ?? 1;
  const measured: SemaphoreBenchResult[][] = [];
  for (let round = 0; round < warmupRounds + rounds; round++) {
    const results = await runRound(connectString, `/zk-recipes-bench/semaphore-${Date.now().toString(36)}-${round}`, options);
    if (round >= warmupRounds) measured.push(results);
  }
  return measured[0]!.map((_, i) => {
    const ofContender = measured.map((results) => results[i]!);
    const sorted = [...ofContender].sort((a, b) => a.sectionsPerSecond - b.sectionsPerSecond);
    return { ...sorted[(sorted.length - 1) >> 1]!, perRound: ofContender.map((r) => Math.round(r.sectionsPerSecond)) };
  });
}

/** One round: our two layouts, the two raw bounds and Curator, one after the other. */
async function runRound(connectString: string, base: string, options: SemaphoreBenchOptions): Promise<SemaphoreBenchResult[]> {
  const processes = options.processes ?? 12;
  const iterations = options.iterations ?? 50;
  const holdMs = options.holdMs ?? 2;
  const leases = options.leases ?? 3;
  const args = (path: string) => [path, String(leases), String(iterations), String(holdMs)];
  const results: SemaphoreBenchResult[] = [];

  for (const layout of ['queue', 'curator'] as const) {
    const workers = Array.from({ length: processes }, () =>
      spawnNodeWorker(SEMAPHORE_WORKER, ['--wait-go', connectString, ...args(`${base}/ours-${layout}`), layout]),
    );
    try {
      await Promise.all(workers.map((w) => w.waitForLine((l) => l.type === 'ready')));
      for (const w of workers) w.go();
      const lines = (await Promise.all(workers.map((w) => w.finished()))).flat();
      const library = layout === 'queue' ? "zk-recipes (layout 'queue', default)" : "zk-recipes (layout 'curator')";
      results.push(measure(library, sectionsOf(lines), leases));
    } finally {
      for (const w of workers) w.kill();
    }
  }

  results.push(await runBound(CEILING, CYCLE_WORKER, [connectString, `${base}/ceiling`, String(iterations), String(holdMs)], processes, Number.POSITIVE_INFINITY));
  results.push(await runBound(HERD_FREE_BOUND, LOCK_LOOP_WORKER, [connectString, `${base}/bound`, String(iterations), String(holdMs), String(leases)], processes, leases));

  const jvms = await Promise.all(
    Array.from({ length: processes }, () => spawnCuratorWorker(['--wait-go', 'semaphore', connectString, ...args(`${base}/curator`)])),
  );
  try {
    await Promise.all(jvms.map((j) => j.waitForLine((l) => l.type === 'ready')));
    for (const j of jvms) j.go();
    const lines = (await Promise.all(jvms.map((j) => j.finished(600_000)))).flat();
    results.push(measure('Curator 5.4 InterProcessSemaphoreV2', sectionsOf(lines as Array<Record<string, unknown>>), leases));
  } finally {
    await Promise.all(jvms.map((j) => j.stop()));
  }
  return results;
}

/** `processes` raw workers started on one "go"; `leases` is the most sections they may hold at once. */
async function runBound(name: typeof CEILING | typeof HERD_FREE_BOUND, worker: string, args: string[], processes: number, leases: number): Promise<SemaphoreBenchResult> {
  const workers = Array.from({ length: processes }, () => spawnNodeWorker(worker, args));
  try {
    await Promise.all(workers.map((w) => w.waitForLine((l) => l.type === 'ready')));
    for (const w of workers) w.go();
    const lines = (await Promise.all(workers.map((w) => w.finished()))).flat();
    return measure(name, sectionsOf(lines), leases);
  } finally {
    for (const w of workers) w.kill();
  }
}

function measure(library: SemaphoreBenchResult['library'], sections: Section[], leases: number): SemaphoreBenchResult {
  const maxConcurrent = maxConcurrency(sections);
  // Correctness first: a benchmark of a broken semaphore measures nothing.
  if (maxConcurrent > leases) throw new Error(`${library}: ${maxConcurrent} leases held at once, more than ${leases}`);
  const first = sections.reduce((min, s) => (s.start < min ? s.start : min), sections[0]!.start);
  const last = sections.reduce((max, s) => (s.end > max ? s.end : max), 0n);
  const span = last - first;
  const handoffs = handoffLatenciesMs(sections);
  return {
    library,
    sections: sections.length,
    spanMs: Number(span) / 1e6,
    sectionsPerSecond: (sections.length * 1e9) / Number(span),
    maxConcurrent,
    allLeasesInUse: Number.isFinite(leases) ? Number(timeAtConcurrency(sections, leases)) / Number(span) : Number.NaN,
    handoffP50Ms: percentile(handoffs, 50),
    handoffP99Ms: percentile(handoffs, 99),
    handoffs: handoffs.length,
  };
}

/** The results as a markdown table, with throughput relative to Curator's. */
export function semaphoreBenchTable(results: readonly SemaphoreBenchResult[], options: SemaphoreBenchOptions = {}): string {
  const { processes = 12, iterations = 50, holdMs = 2, leases = 3, rounds = 3, warmupRounds = 1 } = options;
  const curator = results.find((r) => r.library.startsWith('Curator'));
  const rows = [
    `Semaphore: ${processes} processes x ${iterations} iterations (acquire 1 lease, hold ${holdMs} ms, release), ${leases} leases; ` +
      `ideal ${Math.round((leases * 1000) / holdMs)} sections/s. One ZooKeeper session per process. ` +
      `${warmupRounds} warm-up round(s) discarded, then ${rounds} measured round(s), contenders interleaved; each row is that contender's median round.`,
    '',
    '| library | sections/s (median) | per round | vs Curator | max held at once | all leases in use | release → next holder p50 / p99 (ms) |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    const ratio = curator === undefined ? '' : `${(r.sectionsPerSecond / curator.sectionsPerSecond).toFixed(2)}x`;
    rows.push(
      `| ${r.library} | ${r.sectionsPerSecond.toFixed(0)} | ${(r.perRound ?? []).join(', ')} | ${ratio} | ${r.maxConcurrent} | ` +
        (r.library === CEILING
          ? '— | — |'
          : `${(r.allLeasesInUse * 100).toFixed(1)}% | ${r.handoffP50Ms.toFixed(1)} / ${r.handoffP99Ms.toFixed(1)} (n=${r.handoffs}) |`),
    );
  }
  return rows.join('\n');
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const flag = (name: string, fallback: number) => numberFlag(argv, name, fallback);
  const options: SemaphoreBenchOptions = {
    processes: flag('--processes', 12),
    iterations: flag('--iterations', 50),
    holdMs: flag('--hold-ms', 2),
    leases: flag('--leases', 3),
    rounds: flag('--rounds', 3),
    warmupRounds: flag('--warmup-rounds', 1),
  };
  const explicit = process.env['ZK_CONNECT'];
  const server = explicit === undefined || explicit === '' ? await TestingServer.start() : undefined;
  try {
    const results = await runSemaphoreBench(explicit || server!.connectString, options);
    process.stdout.write(`${semaphoreBenchTable(results, options)}\n`);
    if (argv.includes('--json')) for (const r of results) process.stdout.write(`${JSON.stringify(r)}\n`);
  } finally {
    await server?.stop();
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main();
}
