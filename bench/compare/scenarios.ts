/**
 * The scenarios of `npm run bench:compare` and one run of one of them for one contender: start
 * the processes, let them warm up together on the scenario's own work, open the measured window on
 * every one of them at once, read the servers' counters at its two ends, check the sections and
 * turn them into figures.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ZkSession } from '@zk-recipes/core';
import { findOverlaps, maxConcurrency } from '@zk-recipes/testing';
import { untilChildren } from '../lib/fleets.js';
import { median, percentile } from '../lib/stats.js';
import { startFleet, type Fleet, type MemberSpec, type WorkerResult } from './fleet.js';
import { readServerCounters, serverCost, type ServerCounters } from './serverCounters.js';

export const CONTENDERS = ['base', 'head', 'curator', 'floor'] as const;
export type ContenderName = (typeof CONTENDERS)[number];

/** Who runs a scenario: a zk-recipes build (its worker), Curator 5.4, or the wire floor. */
export type Contender = { kind: 'node'; name: ContenderName; worker: string } | { kind: 'curator'; name: 'curator' };

export type ScenarioName = 'mutex8' | 'uncontended' | 'queue64' | 'rw' | 'semaphore' | 'entities' | 'ensemble' | 'ensemble-rw' | 'ensemble-semaphore';

/** How a run is timed. */
export interface Timing {
  /** Sections every process must have held before the window... */
  warmupSections: number;
  /** ...and the least time from "go" to the window (whichever comes later). */
  warmupMs: number;
  /** The window opens after this long even if a process is short of its sections (reported). */
  warmupMaxMs: number;
  windowMs: number;
  /** From the window line to the window's start (the line arrives during the warm-up). */
  leadMs: number;
  /** From the window's end to the processes' stop: contention stays on to the end of every window. */
  tailMs: number;
}

export interface Sizes {
  queueProcesses: number;
  /** Drains per repetition (each a window of its own: processes x 20 ms ideal). */
  drainRounds: number;
  entityProcesses: number;
  entityTasks: number;
  entityKeys: number;
}

export interface WarmUp {
  /** The fewest sections a process held before the window. */
  minSections: number;
  /** From "go" to the window's start. */
  seconds: number;
  /** The window opened at `warmupMaxMs` with a process short of its sections or time. */
  short: boolean;
}

/** A loop scenario's figures for one contender in one repetition, over the measured window. */
export interface LoopRep {
  kind: 'loop';
  warm: WarmUp;
  processes: number;
  sections: number;
  sectionsPerSecond: number;
  requestsPerSection: number;
  writesPerSection: number;
  notificationsPerSection: number;
  cpuMsPerSection: number;
  /** The most sections held at one instant (leases in use at once, readers sharing). */
  maxConcurrent: number;
  acquireP50Us: number;
  acquireP99Us: number;
  releaseP50Us: number;
  /** Sections/s over the first 100 sections of every process after "go": the cold start. */
  coldSectionsPerSecond: number;
}

/** The drain scenario's figures: each round is `processes` sections of `holdMs`, queued behind a lock the bench held. */
export interface DrainRep {
  kind: 'drain';
  warm: WarmUp;
  processes: number;
  idealMs: number;
  /** Per round: from the bench's delete of its blocker to the end of the round's last hold. */
  roundsMs: number[];
  drainMs: number;
  vsIdeal: number;
}

/** A run that ended without figures (a process died, a timeout): the report shows it and goes on. */
export interface FailedRep {
  kind: 'failed';
  error: string;
}

export type Rep = LoopRep | DrainRep | FailedRep;

/** Sections that break what the lock promises: this ends the whole bench, loudly. */
export class BrokenLockError extends Error {
  override name = 'BrokenLockError';
}

/** Scenario definitions: the processes of a run and what their sections must respect. */
export interface ScenarioDef {
  title: (z: Sizes) => string;
  /** A contended scenario runs in both shapes (shared cores; the server on its own core). */
  contended: boolean;
  ensemble: boolean;
  /** Whether the wire floor runs it too. */
  floor: boolean;
}

export const SCENARIOS: Record<ScenarioName, ScenarioDef> = {
  mutex8: { title: () => '8 processes, one mutex, hold 0', contended: true, ensemble: false, floor: false },
  uncontended: { title: () => 'Uncontended acquire + release: one process, one mutex', contended: false, ensemble: false, floor: false },
  queue64: { title: (z) => `${z.queueProcesses} processes queued behind a held lock, 20 ms holds: drain (ideal ${z.queueProcesses * 20} ms a round)`, contended: true, ensemble: false, floor: false },
  rw: { title: () => '6 readers + 2 writers, 1 ms holds', contended: true, ensemble: false, floor: false },
  semaphore: { title: () => '12 processes, semaphore of 3 leases, 2 ms holds', contended: true, ensemble: false, floor: false },
  entities: {
    title: (z) => `Per-entity locks: ${z.entityProcesses} processes x ${z.entityTasks} concurrent tasks (Curator: threads), ${z.entityKeys} keys, 1 ms holds`,
    contended: true,
    ensemble: false,
    floor: true,
  },
  ensemble: { title: () => '8 processes, one mutex, hold 0, 3-server ensemble', contended: false, ensemble: true, floor: false },
  'ensemble-rw': { title: () => '6 readers + 2 writers, 1 ms holds, 3-server ensemble', contended: false, ensemble: true, floor: false },
  'ensemble-semaphore': { title: () => '12 processes, semaphore of 3 leases, 2 ms holds, 3-server ensemble', contended: false, ensemble: true, floor: false },
};

/** Curator's JVMs: the default compilers (tiered, C2 included), the serial collector. */
const JVM: readonly string[] = ['-XX:+UseSerialGC'];
/** For 64 JVMs at once: the same, with small heaps and stacks. */
const SMALL_HEAP_JVM: readonly string[] = ['-XX:+UseSerialGC', '-Xmx128m', '-Xss512k'];

const JAVA_MODES: Record<string, string> = { mutex: 'win-mutex', read: 'win-rw-read', write: 'win-rw-write', semaphore: 'win-semaphore', entities: 'win-entities', drain: 'win-drain' };

/**
 * `count` processes of `mode` (worker.ts's modes). Node workers take `name=value` options; the
 * Java modes the same values in this order (see Windowed.java).
 */
function members(c: Contender, count: number, mode: string, connect: string, path: string, holdMs: number, options: (index: number) => Array<[string, number]> = () => [], javaOptions = JVM): MemberSpec[] {
  return Array.from({ length: count }, (_, i): MemberSpec => {
    const o = options(i);
    if (c.kind === 'curator') {
      return { kind: 'java', javaOptions, args: ['--session-timeout-ms', '30000', JAVA_MODES[mode]!, connect, path, String(holdMs), ...o.map(([, v]) => String(v))] };
    }
    return { kind: 'node', script: c.worker, args: [mode, connect, path, String(holdMs), ...o.map(([k, v]) => `${k}=${v}`)] };
  });
}

export interface RunContext {
  session: ZkSession;
  connect: string;
  timing: Timing;
  sizes: Sizes;
  log: (message: string) => void;
}

interface WindowedRun<T> {
  results: WorkerResult[];
  warm: WarmUp;
  /** The servers' counters at the window's start and end (none for a drain). */
  cost: { requests: number; writes: number; notifications: number } | undefined;
  driven: T;
}

/** Resolves at `at` (hrtime.bigint()). */
function sleepUntil(at: bigint): Promise<void> {
  return sleep(Math.max(0, Number(at - process.hrtime.bigint()) / 1e6));
}

/**
 * Starts `specs`, says go, waits until every process has held `warmupSections` and `warmupMs`
 * has passed (or `warmupMaxMs`), opens the window `leadMs` later for everyone, reads the servers'
 * counters at both ends of it, runs `drive` (a drain's blocker deletes) from the window's start.
 */
async function windowed<T>(specs: readonly MemberSpec[], ctx: RunContext, o: { drain: boolean; drive?: (start: bigint) => Promise<T> }): Promise<WindowedRun<T>> {
  const t = ctx.timing;
  const fleet: Fleet = await startFleet(specs);
  try {
    const goAt = process.hrtime.bigint();
    fleet.send('go');
    const ticks = setInterval(() => fleet.send('tick'), 250);
    let short = false;
    try {
      for (let lastLog = 0; ; ) {
        await sleep(100);
        const failure = fleet.failure();
        if (failure !== undefined) throw new Error(failure);
        const elapsed = Number(process.hrtime.bigint() - goAt) / 1e6;
        if (elapsed >= t.warmupMs && fleet.minWarm() >= t.warmupSections) break;
        if (elapsed >= t.warmupMaxMs) {
          short = true;
          break;
        }
        if (elapsed - lastLog >= 15_000) {
          lastLog = elapsed;
          ctx.log(`  warming up: ${(elapsed / 1000).toFixed(0)} s, fewest sections in a process ${fleet.minWarm()}`);
        }
      }
    } finally {
      clearInterval(ticks);
    }
    const start = process.hrtime.bigint() + BigInt(t.leadMs) * 1_000_000n;
    const far = start + 3_600_000_000_000n;
    const end = o.drain ? far : start + BigInt(t.windowMs) * 1_000_000n;
    const stop = o.drain ? far : end + BigInt(t.tailMs) * 1_000_000n;
    fleet.send(`window ${start} ${end} ${stop}`);
    const counters: Promise<[ServerCounters, ServerCounters]> | undefined = o.drain
      ? undefined
      : (async () => {
          await sleepUntil(start);
          const before = await readServerCounters(ctx.connect);
          await sleepUntil(end);
          return [before, await readServerCounters(ctx.connect)];
        })();
    counters?.catch(() => undefined);
    const driven = o.drive === undefined ? (undefined as T) : await o.drive(start);
    const results = await fleet.results(t.leadMs + t.windowMs + t.tailMs + 180_000);
    const c = counters === undefined ? undefined : await counters;
    return {
      results,
      warm: { minSections: Math.min(...results.map((r) => r.warmSections)), seconds: Number(start - goAt) / 1e9, short },
      cost: c === undefined ? undefined : serverCost(c[0], c[1], 0),
      driven,
    };
  } finally {
    await fleet.stop();
  }
}

/** A measured section, times in ns from the window's start. */
interface Section {
  worker: string;
  lock: string;
  acquire: number;
  held: number;
  holdEnd: number;
  released: number;
  key: number;
}

function sectionsOf(results: readonly WorkerResult[]): Section[] {
  const out: Section[] = [];
  for (const r of results) {
    const s = r.sections;
    for (let i = 0; i + 4 < s.length; i += 5) {
      out.push({ worker: r.worker, lock: r.lock, acquire: s[i]!, held: s[i + 1]!, holdEnd: s[i + 2]!, released: s[i + 3]!, key: s[i + 4]! });
    }
  }
  return out;
}

/** The hold of a section as an interval for the overlap checks. */
function hold(s: Section): { start: bigint; end: bigint; lock: string; key: number } {
  return { start: BigInt(Math.round(s.held)), end: BigInt(Math.round(s.holdEnd)), lock: s.lock, key: s.key };
}

/** Fails the run when its sections break what the lock promises. */
function checkSections(name: string, scenario: ScenarioName, sections: readonly Section[], limit: number): void {
  if (name === 'floor') return; // no lock: it only sends a lock's requests
  const holds = sections.map(hold);
  if (scenario === 'rw' || scenario === 'ensemble-rw') {
    if (findOverlaps(holds, { maxConcurrent: 1 }).some((o) => o.intervals.some((s) => s.lock === 'write'))) throw new BrokenLockError(`${name}: a write section overlaps another section: the lock is broken`);
  } else if (scenario === 'entities') {
    const byKey = new Map<number, typeof holds>();
    for (const h of holds) (byKey.get(h.key) ?? byKey.set(h.key, []).get(h.key)!).push(h);
    for (const [key, list] of byKey) if (findOverlaps(list).length > 0) throw new BrokenLockError(`${name}: two sections on key ${key} overlap: the lock is broken`);
  } else if (findOverlaps(holds, { maxConcurrent: limit }).length > 0) {
    throw new BrokenLockError(`${name}: more than ${limit} sections at once: the lock is broken`);
  }
}

function loopRep(name: string, scenario: ScenarioName, run: WindowedRun<unknown>, windowMs: number, limit: number): LoopRep {
  const sections = sectionsOf(run.results);
  checkSections(name, scenario, sections, limit);
  // No section in the window: a throughput of 0, and no per-section figures (NaN).
  const n = sections.length;
  const perSection = (total: number): number => (n === 0 ? Number.NaN : total / n);
  const cost = run.cost!;
  const colds = run.results.map((r) => r.coldNs);
  const cpuUs = run.results.reduce((sum, r) => sum + Math.max(0, r.cpuUs), 0);
  return {
    kind: 'loop',
    warm: run.warm,
    processes: run.results.length,
    sections: n,
    sectionsPerSecond: n / (windowMs / 1000),
    requestsPerSection: perSection(cost.requests),
    writesPerSection: perSection(cost.writes),
    notificationsPerSection: perSection(cost.notifications),
    cpuMsPerSection: run.results.some((r) => r.cpuUs < 0) ? Number.NaN : perSection(cpuUs / 1000),
    maxConcurrent: maxConcurrency(sections.map(hold)),
    acquireP50Us: percentile(sections.map((s) => s.held - s.acquire), 0.5) / 1000,
    acquireP99Us: percentile(sections.map((s) => s.held - s.acquire), 0.99) / 1000,
    releaseP50Us: percentile(sections.map((s) => s.released - s.holdEnd), 0.5) / 1000,
    coldSectionsPerSecond: colds.some((ns) => ns <= 0) ? Number.NaN : (run.results.length * 100) / (Math.max(...colds) / 1e9),
  };
}

/** The groups of processes of a loop scenario. */
function loopSpecs(scenario: ScenarioName, c: Contender, connect: string, path: string, z: Sizes): { specs: MemberSpec[]; limit: number; directoryData?: Uint8Array; entityDirs?: number } {
  switch (scenario) {
    case 'mutex8':
    case 'ensemble':
      return { specs: members(c, 8, 'mutex', connect, path, 0), limit: 1 };
    case 'uncontended':
      return { specs: members(c, 1, 'mutex', connect, path, 0), limit: 1 };
    case 'rw':
    case 'ensemble-rw':
      return { specs: [...members(c, 6, 'read', connect, path, 1), ...members(c, 2, 'write', connect, path, 1)], limit: 6 };
    case 'semaphore':
    case 'ensemble-semaphore':
      // The semaphore's directory records its maxLeases as decimal text (docs/semaphore.md,
      // "maxLeases consistency"); Curator's layout keeps its nodes below it and ignores its data.
      return { specs: members(c, 12, 'semaphore', connect, path, 2, () => [['leases', 3]]), limit: 3, directoryData: Buffer.from('3') };
    case 'entities': {
      const specs =
        c.name === 'floor'
          ? Array.from({ length: z.entityProcesses }, (): MemberSpec => ({ kind: 'node', script: c.kind === 'node' ? c.worker : '', args: ['entities', connect, path, '1', `tasks=${z.entityTasks}`, `keys=${z.entityKeys}`] }))
          : members(c, z.entityProcesses, 'entities', connect, path, 1, () => [['tasks', z.entityTasks], ['keys', z.entityKeys]]);
      return { specs, limit: z.entityTasks * z.entityProcesses, entityDirs: z.entityKeys };
    }
    case 'queue64':
      throw new Error('queue64 is a drain');
  }
}

/** One loop scenario, once, for one contender, at `path` (fresh). */
export async function runLoop(scenario: ScenarioName, c: Contender, ctx: RunContext, path: string): Promise<LoopRep> {
  const { specs, limit, directoryData, entityDirs } = loopSpecs(scenario, c, ctx.connect, path, ctx.sizes);
  // The lock's directory exists, as it does for a lock in use: no contender pays for creating it.
  await ctx.session.mkdirp(path, 'persistent', { data: directoryData });
  if (entityDirs !== undefined) {
    for (let from = 0; from < entityDirs; from += 100) {
      await Promise.all(Array.from({ length: Math.min(100, entityDirs - from) }, (_, i) => ctx.session.mkdirp(`${path}/k${from + i}`)));
    }
  }
  const run = await windowed(specs, ctx, { drain: false });
  return loopRep(c.name, scenario, run, ctx.timing.windowMs, limit);
}

/**
 * `processes` processes warm up in groups of 8 on locks of their own (1 ms holds), then queue behind
 * lock `drain-0`, which a blocker node of the bench's session holds (a plain lock node in the
 * naming both libraries read, `_c_<uuid>-lock-<seq>`: no build's code, so every contender queues
 * behind the same thing). Once all are queued the bench deletes the blocker; each process holds
 * 20 ms, releases, and queues on `drain-1` behind the next blocker; and so on for each round.
 */
export async function runDrain(c: Contender, ctx: RunContext, path: string): Promise<DrainRep> {
  const { queueProcesses: n, drainRounds: rounds } = ctx.sizes;
  const holdMs = 20;
  const groups = Math.max(1, Math.ceil(n / 8));
  for (let g = 0; g < groups; g++) await ctx.session.mkdirp(`${path}/warm-${g}`);
  const blockers: string[] = [];
  try {
    for (let r = 0; r < rounds; r++) {
      await ctx.session.mkdirp(`${path}/drain-${r}`);
      blockers.push((await ctx.session.create(`${path}/drain-${r}/_c_${randomUUID()}-lock-`, null, { mode: 'ephemeral_sequential' })).path);
    }
    const specs = members(c, n, 'drain', ctx.connect, path, holdMs, (i) => [['rounds', rounds], ['group', i % groups]], SMALL_HEAP_JVM);
    const run = await windowed(specs, ctx, {
      drain: true,
      drive: async (start) => {
        await sleepUntil(start);
        const deletedAt: number[] = [];
        for (let r = 0; r < rounds; r++) {
          // Every process is queued on this round once the last one finished the previous round.
          if (r > 0) await sleep(n * holdMs * 0.9);
          await untilChildren(ctx.session, `${path}/drain-${r}`, n + 1, 240_000);
          deletedAt.push(Number(process.hrtime.bigint() - start));
          await ctx.session.delete(blockers[r]!);
          blockers[r] = '';
        }
        return deletedAt;
      },
    });
    const sections = sectionsOf(run.results).filter((s) => s.key >= 0);
    const roundsMs = run.driven.map((deletedAt, r) => {
      const round = sections.filter((s) => s.key === r);
      if (round.length !== n) throw new Error(`${c.name}: round ${r} has ${round.length} sections, expected ${n}`);
      if (findOverlaps(round.map(hold)).length > 0) throw new BrokenLockError(`${c.name}: critical sections overlap in round ${r}: the lock is broken`);
      return (Math.max(...round.map((s) => s.holdEnd)) - deletedAt) / 1e6;
    });
    const drainMs = median(roundsMs);
    return { kind: 'drain', warm: run.warm, processes: n, idealMs: n * holdMs, roundsMs, drainMs, vsIdeal: drainMs / (n * holdMs) };
  } finally {
    for (const b of blockers) if (b !== '') await ctx.session.delete(b).catch(() => undefined);
  }
}
