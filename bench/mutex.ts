/**
 * Mutex benchmark: zk-recipes' InterProcessMutex side by side with Apache Curator 5.4's
 * InterProcessMutex and with the raw wire client (node-zookeeper-client 1.1.3, no lock library),
 * in ONE run against ONE ZooKeeper server, repetitions interleaved (ours, Curator, raw, ours, ...)
 * so that the load of a shared machine hits all three alike. Targets are ratios within the run.
 *
 * Scenarios:
 * 1. uncontended acquire/release latency on a warm session (p50/p99), vs raw create + listing
 *    pipelined and raw delete;
 * 2. 8 contending processes looping acquire → hold → release: critical sections/s and the gap from
 *    one holder's end to the next holder's start, vs raw delete-to-watch;
 * 3. 64 processes queued behind a blocker the bench holds, 20 ms holds: time to drain (ideal 64 x 20 ms);
 * 4. 10,000 concurrent waiters in one process: time to queue, to drain, heap growth, vs the raw
 *    client doing the same with one session.
 *
 * Usage: node --conditions=@zk-recipes/source --import tsx bench/mutex.ts [--quick] [--json]
 *   [--reps N] [--reps-64 N] [--reps-10k N] [--waiters N] [--curator-waiters N]
 * Starts a fresh TestingServer (fsync on) unless ZK_CONNECT is set. Prints markdown.
 */
import { AsyncResource } from 'node:async_hooks';
import { fileURLToPath } from 'node:url';
import { ZkSession } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { findOverlaps, handoffGaps, spawnCuratorWorker, TestingServer, type Interval } from '@zk-recipes/testing';
import { SMALL_JVM, startCuratorFleet, startNodeFleet, untilChildren, type Fleet } from './lib/fleets.js';
import { machineInfo, packetsReceived, zookeeperVersion, type MachineInfo } from './lib/machine.js';
import { runNodeScript } from './lib/processes.js';
import { fmtMiB, fmtMs, fmtRatio, median, nsToMs, percentile } from './lib/stats.js';
import { markdownTable, passes, targetTable, type TargetCheck } from './lib/table.js';
import { rawCrossProcessDeleteToWatch } from './raw/crossProcessDeleteToWatch.js';
import { rawDeleteToWatch } from './raw/deleteToWatch.js';
import { RawUncontended } from './raw/uncontended.js';

const MUTEX_WORKER = fileURLToPath(new URL('../packages/mutex/test/workers/mutexWorker.ts', import.meta.url));
const RAW_LOCK_LOOP = fileURLToPath(new URL('./raw/lockLoopWorker.ts', import.meta.url));
const OUR_MANY_WAITERS = fileURLToPath(new URL('./workers/ourManyWaiters.ts', import.meta.url));
const RAW_MANY_WAITERS = fileURLToPath(new URL('./raw/manyWaitersProcess.ts', import.meta.url));

export interface MutexBenchOptions {
  /** Interleaved repetitions of scenarios 1 and 2. */
  reps: number;
  /** Repetitions of scenario 3 (64 processes). */
  reps64: number;
  /** Repetitions of scenario 4 (many waiters). */
  reps10k: number;
  /** Acquire/release pairs per repetition in scenario 1. */
  uncontendedN: number;
  /** Warm-up pairs of ours before scenario 1 (raw gets a quarter). */
  warmup: number;
  /** Iterations per process in scenario 2. */
  contendedIterations: number;
  contendedHoldMs: number;
  /** Scenario 4's waiter count. */
  waiters: number;
  /** Scenario 4's waiter count for Curator (its drain is quadratic). */
  curatorWaiters: number;
}

export const DEFAULT_OPTIONS: MutexBenchOptions = {
  reps: 5,
  reps64: 2,
  reps10k: 1,
  uncontendedN: 400,
  warmup: 3000,
  contendedIterations: 40,
  contendedHoldMs: 1,
  waiters: 10_000,
  curatorWaiters: 2_000,
};

type Lib = 'ours' | 'curator' | 'raw';

export interface UncontendedResult {
  acquireNs: Record<Lib, number[]>;
  releaseNs: Record<Lib, number[]>;
  /** Server packets per acquire+release pair (ours and Curator). */
  requestsPerPair: { ours: number[]; curator: number[] };
}

export interface ContendedRep {
  sectionsPerSecond: number;
  gapP50Ms: number;
  gapP99Ms: number;
  sections: number;
}

export interface ContendedResult {
  ours: ContendedRep[];
  curator: ContendedRep[];
  /** The same loop as ours, written on the raw client (bench/raw/lockLoopWorker.ts): the protocol's floor. */
  rawLoop: ContendedRep[];
  /** Raw delete-to-watch samples (ns), all repetitions: both sessions in the bench process. */
  rawDeleteToWatchNs: number[];
  /** The same with the watching session in another process (includes waking it). */
  rawCrossProcessDeleteToWatchNs: number[];
}

export interface DrainRep {
  drainMs: number;
  gapP50Ms: number;
}

export interface Queue64Result {
  ours: DrainRep[];
  curator: DrainRep[];
  /** The raw-client lock loop (bench/raw/lockLoopWorker.ts), one section per process. */
  rawLoop: DrainRep[];
  processes: number;
  holdMs: number;
}

export interface ManyWaitersRep {
  queueMs: number;
  drainMs: number;
  heapGrowthBytes: number;
  peakHeapGrowthBytes?: number;
  /** Server requests per waiter while draining (ours and raw). */
  drainRequestsPerWaiter?: number;
}

export interface ManyWaitersResult {
  ours: ManyWaitersRep[];
  curator: ManyWaitersRep[];
  raw: ManyWaitersRep[];
  n: number;
  /** Waiters in Curator's runs (fewer: see scenarioManyWaiters). */
  curatorN: number;
}

export interface MutexBenchReport {
  machine: MachineInfo;
  zookeeper: string;
  options: MutexBenchOptions;
  uncontended: UncontendedResult;
  contended: ContendedResult;
  queue64: Queue64Result;
  manyWaiters: ManyWaitersResult;
  targets: TargetCheck[];
  wallSeconds: number;
}

function log(message: string): void {
  process.stderr.write(`[bench:mutex ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

function partial<T>(scenario: string, result: T): T {
  if (scenario === 'uncontended') {
    const u = result as unknown as UncontendedResult;
    const p50 = (xs: number[]) => (percentile(xs, 0.5) / 1e6).toFixed(3);
    log(`uncontended acquire p50 ms: ours ${p50(u.acquireNs.ours)} Curator ${p50(u.acquireNs.curator)} raw ${p50(u.acquireNs.raw)}`);
  } else {
    // Sample arrays (thousands of delete-to-watch times) would bury the log: show their size.
    const summary = JSON.stringify(result, (_key, value: unknown) =>
      Array.isArray(value) && value.length > 20 && typeof value[0] === 'number' ? `[${value.length} samples]` : value,
    );
    log(`${scenario}: ${summary}`);
  }
  return result;
}

/** Runs all four scenarios and returns the raw figures and the target checks. */
export async function runMutexBench(connectString: string, options: MutexBenchOptions): Promise<MutexBenchReport> {
  const began = Date.now();
  const base = `/zk-recipes-bench/mutex-${Date.now().toString(36)}`;
  const session = await ZkSession.connect({ connectString, sessionTimeoutMs: 30_000 });
  try {
    await session.mkdirp(base);
    // Each scenario's figures go to stderr as soon as they exist: a later failure loses nothing.
    const uncontended = partial('uncontended', await scenarioUncontended(connectString, session, `${base}/uncontended`, options));
    const contended = partial('contended', await scenarioContended(connectString, `${base}/contended`, options));
    const queue64 = partial('queue64', await scenarioQueue64(connectString, session, `${base}/queue64`, options));
    const manyWaiters = partial('manyWaiters', await scenarioManyWaiters(connectString, `${base}/many`, options));
    return {
      machine: machineInfo(),
      zookeeper: await zookeeperVersion(connectString),
      options,
      uncontended,
      contended,
      queue64,
      manyWaiters,
      targets: targetsOf(uncontended, contended, queue64, manyWaiters),
      wallSeconds: (Date.now() - began) / 1000,
    };
  } finally {
    await session.close();
  }
}

// ---------------------------------------------------------------- 1. uncontended

async function scenarioUncontended(connectString: string, session: ZkSession, dir: string, o: MutexBenchOptions): Promise<UncontendedResult> {
  const result: UncontendedResult = {
    acquireNs: { ours: [], curator: [], raw: [] },
    releaseNs: { ours: [], curator: [], raw: [] },
    requestsPerPair: { ours: [], curator: [] },
  };
  const mutex = new InterProcessMutex(session, `${dir}/ours`);
  const raw = await RawUncontended.open(connectString, `${dir}/raw`);
  // Each pair in a fresh async context, as each request of a server would be: acquiring in a loop
  // inside one async function nests every acquire's owner frame in the previous one's (see
  // docs/benchmarks.md), which is not the case being measured here.
  const root = new AsyncResource('bench-uncontended');
  const oursPair = (): Promise<{ acquireNs: number; releaseNs: number }> =>
    root.runInAsyncScope(async () => {
      const t0 = process.hrtime.bigint();
      const handle = await mutex.acquire();
      const t1 = process.hrtime.bigint();
      await handle.release();
      return { acquireNs: Number(t1 - t0), releaseNs: Number(process.hrtime.bigint() - t1) };
    });
  try {
    // Warm-up: V8 needs a few thousand pairs before ours settles (CPU per pair falls ~4x).
    for (let i = 0; i < o.warmup; i++) {
      await oursPair();
      if (i % 4 === 0) await raw.pair();
    }
    for (let rep = 0; rep < o.reps; rep++) {
      log(`uncontended rep ${rep + 1}/${o.reps}`);
      // Ours and raw alternate pair by pair; the server's packet counter covers both.
      const before = await packetsReceived(connectString);
      for (let i = 0; i < o.uncontendedN; i++) {
        const ours = await oursPair();
        result.acquireNs.ours.push(ours.acquireNs);
        result.releaseNs.ours.push(ours.releaseNs);
        const floor = await raw.pair();
        result.acquireNs.raw.push(floor.acquireNs);
        result.releaseNs.raw.push(floor.releaseNs);
      }
      result.requestsPerPair.ours.push(((await packetsReceived(connectString)) - before) / o.uncontendedN - 3);

      const warmup = 200;
      const cBefore = await packetsReceived(connectString);
      const jvm = await spawnCuratorWorker(['--warmup', String(warmup), 'bench-uncontended', connectString, `${dir}/curator`, String(o.uncontendedN)]);
      try {
        const line = await jvm.waitForLine((l) => l.type === 'bench', 120_000);
        await jvm.finished(30_000);
        result.acquireNs.curator.push(...(line['acquireNs'] as number[]));
        result.releaseNs.curator.push(...(line['releaseNs'] as number[]));
      } finally {
        await jvm.stop();
      }
      // Connect and close are 2 of these packets, pings a handful: negligible per pair.
      result.requestsPerPair.curator.push(((await packetsReceived(connectString)) - cBefore) / (o.uncontendedN + warmup));
    }
  } finally {
    raw.close();
  }
  return result;
}

// ---------------------------------------------------------------- 2. 8 contending processes

interface SectionLine {
  type: string;
  worker: string;
  start: string;
  end: string;
}

function intervalsOf(lines: readonly unknown[]): Interval[] {
  return (lines as SectionLine[])
    .filter((l) => l.type === 'section')
    .map((l) => ({ worker: l.worker, start: BigInt(l.start), end: BigInt(l.end) }));
}

function contendedRep(library: string, intervals: Interval[]): ContendedRep {
  if (findOverlaps(intervals).length > 0) throw new Error(`${library}: critical sections overlap: the lock is broken`);
  const first = intervals.reduce((m, s) => (s.start < m ? s.start : m), intervals[0]!.start);
  const last = intervals.reduce((m, s) => (s.end > m ? s.end : m), 0n);
  const gaps = handoffGaps(intervals).map((g) => nsToMs(g.gapNs));
  return {
    sections: intervals.length,
    sectionsPerSecond: (intervals.length * 1000) / nsToMs(last - first),
    gapP50Ms: percentile(gaps, 0.5),
    gapP99Ms: percentile(gaps, 0.99),
  };
}

async function scenarioContended(connectString: string, dir: string, o: MutexBenchOptions): Promise<ContendedResult> {
  const result: ContendedResult = { ours: [], curator: [], rawLoop: [], rawDeleteToWatchNs: [], rawCrossProcessDeleteToWatchNs: [] };
  const processes = 8;
  for (let rep = 0; rep < o.reps; rep++) {
    log(`8 contending processes rep ${rep + 1}/${o.reps}`);
    const oursArgs = [connectString, `${dir}/ours-${rep}`, String(o.contendedIterations), String(o.contendedHoldMs)];
    result.ours.push(contendedRep('zk-recipes', intervalsOf(await runFleet(await startNodeFleet(MUTEX_WORKER, processes, oursArgs)))));
    const curatorArgs = ['mutex', connectString, `${dir}/curator-${rep}`, String(o.contendedIterations), String(o.contendedHoldMs)];
    result.curator.push(contendedRep('Curator', intervalsOf(await runFleet(await startCuratorFleet(processes, curatorArgs)))));
    const rawArgs = [connectString, `${dir}/raw-loop-${rep}`, String(o.contendedIterations), String(o.contendedHoldMs)];
    result.rawLoop.push(contendedRep('raw loop', intervalsOf(await runFleet(await startNodeFleet(RAW_LOCK_LOOP, processes, rawArgs)))));

    result.rawDeleteToWatchNs.push(...(await rawDeleteToWatch(connectString, `${dir}/raw-${rep}`, 200, 20)));
    result.rawCrossProcessDeleteToWatchNs.push(...(await rawCrossProcessDeleteToWatch(connectString, `${dir}/raw-x-${rep}`, 200, 20)));
  }
  return result;
}

// ---------------------------------------------------------------- 3. 64 processes, 20 ms holds

/** Says go, waits for every member to finish, returns their lines; stops the fleet in any case. */
async function runFleet(fleet: Fleet, timeoutMs = 180_000): Promise<unknown[]> {
  try {
    fleet.go();
    return await fleet.finished(timeoutMs);
  } finally {
    await fleet.stop();
  }
}

/**
 * The bench takes the lock (its own InterProcessMutex), starts the fleet (which connects in waves,
 * then says go: every member queues), waits until all are queued, releases, and times the drain.
 */
async function drainBehindBlocker(session: ZkSession, path: string, processes: number, startFleet: () => Promise<Fleet>): Promise<DrainRep> {
  const blocker = await new InterProcessMutex(session, path).acquire();
  let fleet: Fleet | undefined;
  let sections: Interval[];
  let releasedAt: bigint;
  try {
    fleet = await startFleet();
    fleet.go();
    await untilChildren(session, path, processes + 1, 240_000);
    releasedAt = process.hrtime.bigint();
    await blocker.release();
    sections = intervalsOf(await fleet.finished(180_000));
  } finally {
    if (blocker.held) await blocker.release();
    await fleet?.stop();
  }
  if (sections.length !== processes) throw new Error(`expected ${processes} sections, got ${sections.length}`);
  if (findOverlaps(sections).length > 0) throw new Error('critical sections overlap: the lock is broken');
  const last = sections.reduce((m, s) => (s.end > m ? s.end : m), 0n);
  const gaps = handoffGaps(sections).map((g) => nsToMs(g.gapNs));
  return { drainMs: nsToMs(last - releasedAt), gapP50Ms: percentile(gaps, 0.5) };
}

async function scenarioQueue64(connectString: string, session: ZkSession, dir: string, o: MutexBenchOptions): Promise<Queue64Result> {
  const processes = 64;
  const holdMs = 20;
  const result: Queue64Result = { ours: [], curator: [], rawLoop: [], processes, holdMs };
  for (let rep = 0; rep < o.reps64; rep++) {
    log(`64 queued processes rep ${rep + 1}/${o.reps64}: zk-recipes`);
    const oursPath = `${dir}/ours-${rep}`;
    result.ours.push(await drainBehindBlocker(session, oursPath, processes, () => startNodeFleet(MUTEX_WORKER, processes, [connectString, oursPath, '1', String(holdMs)])));
    log(`64 queued processes rep ${rep + 1}/${o.reps64}: Curator (64 JVMs)`);
    const curatorPath = `${dir}/curator-${rep}`;
    result.curator.push(
      await drainBehindBlocker(session, curatorPath, processes, () => startCuratorFleet(processes, ['mutex', connectString, curatorPath, '1', String(holdMs)], SMALL_JVM)),
    );
    log(`64 queued processes rep ${rep + 1}/${o.reps64}: raw lock loop`);
    const rawPath = `${dir}/raw-${rep}`;
    result.rawLoop.push(await drainBehindBlocker(session, rawPath, processes, () => startNodeFleet(RAW_LOCK_LOOP, processes, [connectString, rawPath, '1', String(holdMs)])));
  }
  return result;
}

// ---------------------------------------------------------------- 4. many waiters in one process

function manyWaitersRep(lines: readonly unknown[]): ManyWaitersRep {
  const line = lines.find((l) => (l as { type?: string }).type === 'bench') as ManyWaitersRep | undefined;
  if (line === undefined) throw new Error('no bench line');
  return line;
}

async function scenarioManyWaiters(connectString: string, dir: string, o: MutexBenchOptions): Promise<ManyWaitersResult> {
  const n = o.waiters;
  const result: ManyWaitersResult = { ours: [], curator: [], raw: [], n, curatorN: Math.min(n, o.curatorWaiters) };
  for (let rep = 0; rep < o.reps10k; rep++) {
    log(`${n} waiters rep ${rep + 1}/${o.reps10k}: zk-recipes`);
    result.ours.push(manyWaitersRep(await runNodeScript(OUR_MANY_WAITERS, [connectString, `${dir}/ours-${rep}`, String(n)], { nodeFlags: ['--expose-gc'], timeoutMs: 600_000 })));

    // Curator relists the whole directory on every hand-off (O(n) per waiter, O(n^2) in all): with
    // 10,000 waiters it drained ~9 per second here (~18 min), so it runs with fewer waiters.
    const cn = Math.min(n, o.curatorWaiters);
    log(`${cn} waiters rep ${rep + 1}/${o.reps10k}: Curator`);
    const jvm = await spawnCuratorWorker(['--session-timeout-ms', '60000', 'many-waiters', connectString, `${dir}/curator-${rep}`, String(cn)], {
      javaOptions: ['-XX:+UseSerialGC', '-Xmx2g'],
    });
    try {
      const line = await jvm.waitForLine((l) => l.type === 'bench', 300_000);
      result.curator.push({ queueMs: nsToMs(line['queueNs'] as number), drainMs: nsToMs(line['drainNs'] as number), heapGrowthBytes: line['heapGrowthBytes'] as number });
    } catch (err) {
      log(`Curator many-waiters did not finish: ${String(err).slice(0, 300)}`);
    } finally {
      await jvm.stop();
    }

    log(`${n} waiters rep ${rep + 1}/${o.reps10k}: raw client`);
    result.raw.push(manyWaitersRep(await runNodeScript(RAW_MANY_WAITERS, [connectString, `${dir}/raw-${rep}`, String(n)], { nodeFlags: ['--expose-gc'], timeoutMs: 600_000 })));
  }
  return result;
}

// ---------------------------------------------------------------- targets and report

function targetsOf(u: UncontendedResult, c: ContendedResult, q: Queue64Result, m: ManyWaitersResult): TargetCheck[] {
  const p50 = (xs: number[]) => percentile(xs, 0.5);
  const medianOf = <T>(reps: T[], f: (r: T) => number) => median(reps.map(f));
  return [
    { name: '1. uncontended acquire p50 vs Curator', ratio: p50(u.acquireNs.ours) / p50(u.acquireNs.curator), limit: 0.8, kind: 'max' },
    { name: '1. uncontended acquire p50 vs raw create + listing', ratio: p50(u.acquireNs.ours) / p50(u.acquireNs.raw), limit: 1.15, kind: 'max' },
    {
      name: '2. sections/s with 8 processes vs Curator',
      ratio: medianOf(c.ours, (r) => r.sectionsPerSecond) / medianOf(c.curator, (r) => r.sectionsPerSecond),
      limit: 2,
      kind: 'min',
    },
    { name: '2. hand-off gap p50 vs raw delete-to-watch p50', ratio: medianOf(c.ours, (r) => r.gapP50Ms) / nsToMs(p50(c.rawDeleteToWatchNs)), limit: 1.5, kind: 'max' },
    { name: `3. ${q.processes}-process drain vs ideal ${q.processes} x ${q.holdMs} ms`, ratio: medianOf(q.ours, (r) => r.drainMs) / (q.processes * q.holdMs), limit: 1.2, kind: 'max' },
    { name: `4. ${m.n} waiters: drain vs raw floor`, ratio: medianOf(m.ours, (r) => r.drainMs) / medianOf(m.raw, (r) => r.drainMs), limit: 1.2, kind: 'max' },
    { name: `4. ${m.n} waiters: heap growth vs raw floor`, ratio: medianOf(m.ours, (r) => r.heapGrowthBytes) / medianOf(m.raw, (r) => r.heapGrowthBytes), limit: 2, kind: 'max' },
  ];
}

/** The report as markdown (the body of docs/benchmarks.md's mutex section). */
export function mutexBenchMarkdown(r: MutexBenchReport, command: string): string {
  const { uncontended: u, contended: c, queue64: q, manyWaiters: m } = r;
  const ms = (ns: number) => fmtMs(nsToMs(ns), 3);
  const p = (xs: number[], pp: number) => percentile(xs, pp);
  const med = <T>(reps: T[], f: (x: T) => number) => median(reps.map(f));
  const list = <T>(reps: T[], f: (x: T) => number, digits = 0) => reps.map((x) => f(x).toFixed(digits)).join(', ');
  const out: string[] = [];
  out.push(
    `Machine: ${r.machine.nproc} CPUs (nproc), ${r.machine.cpuModel}, ${r.machine.memoryGiB.toFixed(1)} GiB RAM; Node ${r.machine.node}; load average at the end ${r.machine.loadAverage}.`,
    `ZooKeeper ${r.zookeeper}, one fresh standalone \`TestingServer\`, forceSync=yes (fsync on every transaction-log write). Curator 5.4 (Debian jars).`,
    `Command: \`${command}\`; wall time ${r.wallSeconds.toFixed(0)} s. Repetitions interleaved (zk-recipes, Curator, raw, zk-recipes, ...).`,
    '',
    `### 1. Uncontended acquire / release (warm session after ${r.options.warmup} pairs; ${r.options.reps} x ${r.options.uncontendedN} pairs each; ours and raw alternate pair by pair, Curator (own JVM, 200 warm-up pairs) between them)`,
    '',
    markdownTable(
      ['', 'acquire p50', 'acquire p99', 'release p50', 'release p99', 'requests / pair'],
      [
        ['zk-recipes InterProcessMutex', ms(p(u.acquireNs.ours, 0.5)), ms(p(u.acquireNs.ours, 0.99)), ms(p(u.releaseNs.ours, 0.5)), ms(p(u.releaseNs.ours, 0.99)), med(u.requestsPerPair.ours, (x) => x).toFixed(2)],
        ['Curator InterProcessMutex', ms(p(u.acquireNs.curator, 0.5)), ms(p(u.acquireNs.curator, 0.99)), ms(p(u.releaseNs.curator, 0.5)), ms(p(u.releaseNs.curator, 0.99)), med(u.requestsPerPair.curator, (x) => x).toFixed(2)],
        ['raw: create + getChildren pipelined / delete', ms(p(u.acquireNs.raw, 0.5)), ms(p(u.acquireNs.raw, 0.99)), ms(p(u.releaseNs.raw, 0.5)), ms(p(u.releaseNs.raw, 0.99)), '2 / 1'],
      ],
    ),
    '',
    `Ratios: acquire p50 ours/Curator ${fmtRatio(p(u.acquireNs.ours, 0.5) / p(u.acquireNs.curator, 0.5))}, ours/raw ${fmtRatio(p(u.acquireNs.ours, 0.5) / p(u.acquireNs.raw, 0.5))}; release p50 ours/Curator ${fmtRatio(p(u.releaseNs.ours, 0.5) / p(u.releaseNs.curator, 0.5))}, ours/raw delete ${fmtRatio(p(u.releaseNs.ours, 0.5) / p(u.releaseNs.raw, 0.5))}.`,
    '',
    `### 2. 8 contending processes (each its own session; ${r.options.contendedIterations} x (acquire, hold ${r.options.contendedHoldMs} ms, release) per process; common start)`,
    '',
    markdownTable(
      ['', 'sections/s (median)', 'per rep', 'gap p50 (median)', 'gap p50 per rep', 'gap p99 (median)'],
      [
        ['zk-recipes (8 Node processes)', med(c.ours, (x) => x.sectionsPerSecond).toFixed(0), list(c.ours, (x) => x.sectionsPerSecond), fmtMs(med(c.ours, (x) => x.gapP50Ms), 3), list(c.ours, (x) => x.gapP50Ms, 2), fmtMs(med(c.ours, (x) => x.gapP99Ms), 2)],
        ['Curator (8 JVMs)', med(c.curator, (x) => x.sectionsPerSecond).toFixed(0), list(c.curator, (x) => x.sectionsPerSecond), fmtMs(med(c.curator, (x) => x.gapP50Ms), 3), list(c.curator, (x) => x.gapP50Ms, 2), fmtMs(med(c.curator, (x) => x.gapP99Ms), 2)],
        ['raw lock loop (the same recipe on node-zookeeper-client alone, 8 Node processes)', med(c.rawLoop, (x) => x.sectionsPerSecond).toFixed(0), list(c.rawLoop, (x) => x.sectionsPerSecond), fmtMs(med(c.rawLoop, (x) => x.gapP50Ms), 3), list(c.rawLoop, (x) => x.gapP50Ms, 2), fmtMs(med(c.rawLoop, (x) => x.gapP99Ms), 2)],
        ['raw: delete → other session\'s watch fires (same process; the target\'s floor)', '', '', ms(p(c.rawDeleteToWatchNs, 0.5)), '', ms(p(c.rawDeleteToWatchNs, 0.99))],
        ['raw: delete → watch fires in another process', '', '', ms(p(c.rawCrossProcessDeleteToWatchNs, 0.5)), '', ms(p(c.rawCrossProcessDeleteToWatchNs, 0.99))],
      ],
    ),
    '',
    `Ratios (medians): sections/s ours/Curator ${fmtRatio(med(c.ours, (x) => x.sectionsPerSecond) / med(c.curator, (x) => x.sectionsPerSecond))}, ours/raw loop ${fmtRatio(med(c.ours, (x) => x.sectionsPerSecond) / med(c.rawLoop, (x) => x.sectionsPerSecond))}; gap p50 ours/raw loop ${fmtRatio(med(c.ours, (x) => x.gapP50Ms) / med(c.rawLoop, (x) => x.gapP50Ms))}, raw loop/raw delete-to-watch ${fmtRatio(med(c.rawLoop, (x) => x.gapP50Ms) / nsToMs(p(c.rawDeleteToWatchNs, 0.5)))}.`,
    '',
    `### 3. ${q.processes} processes queued on one lock, ${q.holdMs} ms holds (ideal drain ${q.processes * q.holdMs} ms)`,
    '',
    'All processes connect, queue behind a blocker the bench holds (the lock directory has 65 children), then the blocker is released; drain = blocker release → last section end.',
    '',
    markdownTable(
      ['', 'drain (median)', 'per rep (ms)', 'vs ideal', 'gap p50'],
      [
        ['zk-recipes (64 Node processes)', fmtMs(med(q.ours, (x) => x.drainMs), 0), list(q.ours, (x) => x.drainMs), fmtRatio(med(q.ours, (x) => x.drainMs) / (q.processes * q.holdMs)), fmtMs(med(q.ours, (x) => x.gapP50Ms), 2)],
        ['Curator (64 JVMs)', fmtMs(med(q.curator, (x) => x.drainMs), 0), list(q.curator, (x) => x.drainMs), fmtRatio(med(q.curator, (x) => x.drainMs) / (q.processes * q.holdMs)), fmtMs(med(q.curator, (x) => x.gapP50Ms), 2)],
        ['raw lock loop (the same recipe on node-zookeeper-client alone, 64 Node processes)', fmtMs(med(q.rawLoop, (x) => x.drainMs), 0), list(q.rawLoop, (x) => x.drainMs), fmtRatio(med(q.rawLoop, (x) => x.drainMs) / (q.processes * q.holdMs)), fmtMs(med(q.rawLoop, (x) => x.gapP50Ms), 2)],
      ],
    ),
    '',
    `### 4. ${m.n} concurrent waiters on one lock in one process`,
    '',
    markdownTable(
      ['', 'time to queue', 'time to drain', 'heap growth (queued, after GC)', 'peak heap growth (sampled, garbage incl.)', 'requests / waiter while draining'],
      [
        ['zk-recipes (one session, one InterProcessMutex, N tasks)', fmtMs(med(m.ours, (x) => x.queueMs), 0), fmtMs(med(m.ours, (x) => x.drainMs), 0), fmtMiB(med(m.ours, (x) => x.heapGrowthBytes)), fmtMiB(med(m.ours, (x) => x.peakHeapGrowthBytes ?? Number.NaN)), med(m.ours, (x) => x.drainRequestsPerWaiter ?? Number.NaN).toFixed(2)],
        [`Curator (${m.curatorN} threads, one client)`, fmtMs(med(m.curator, (x) => x.queueMs), 0), fmtMs(med(m.curator, (x) => x.drainMs), 0), fmtMiB(med(m.curator, (x) => x.heapGrowthBytes)), '', ''],
        ['raw client (one session, sequential nodes, watch on predecessor)', fmtMs(med(m.raw, (x) => x.queueMs), 0), fmtMs(med(m.raw, (x) => x.drainMs), 0), fmtMiB(med(m.raw, (x) => x.heapGrowthBytes)), fmtMiB(med(m.raw, (x) => x.peakHeapGrowthBytes ?? Number.NaN)), med(m.raw, (x) => x.drainRequestsPerWaiter ?? Number.NaN).toFixed(2)],
      ],
    ),
    '',
    '### Targets',
    '',
    targetTable(r.targets),
    '',
    `${r.targets.filter(passes).length} of ${r.targets.length} targets met in this run.`,
  );
  return out.join('\n');
}

function parseArgs(argv: readonly string[]): MutexBenchOptions {
  const o = { ...DEFAULT_OPTIONS };
  const num = (flag: string): number | undefined => {
    const i = argv.indexOf(flag);
    return i >= 0 ? Number(argv[i + 1]) : undefined;
  };
  if (argv.includes('--quick')) Object.assign(o, { reps: 1, reps64: 1, reps10k: 1, uncontendedN: 200, warmup: 500, contendedIterations: 20, waiters: 1000, curatorWaiters: 1000 });
  o.reps = num('--reps') ?? o.reps;
  o.reps64 = num('--reps-64') ?? o.reps64;
  o.reps10k = num('--reps-10k') ?? o.reps10k;
  o.waiters = num('--waiters') ?? o.waiters;
  o.curatorWaiters = num('--curator-waiters') ?? o.curatorWaiters;
  return o;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const options = parseArgs(argv);
  const explicit = process.env['ZK_CONNECT'];
  const server = explicit === undefined || explicit === '' ? await TestingServer.start({ forceSync: true }) : undefined;
  try {
    const report = await runMutexBench(explicit || server!.connectString, options);
    process.stdout.write(`${mutexBenchMarkdown(report, `npm run bench:mutex${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`)}\n`);
    if (argv.includes('--json')) process.stdout.write(`${JSON.stringify(report, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}\n`);
  } finally {
    await server?.stop();
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main();
}
