/**
 * The scenarios of `npm run bench:compare`, each run once for one contender (a zk-recipes build's
 * worker, or Curator 5.4's CuratorWorker): start the processes (connected, at the start line),
 * read the servers' counters, say go, collect every process's lines, read the counters again.
 */
import { randomUUID } from 'node:crypto';
import type { ZkSession } from '@zk-recipes/core';
import { findOverlaps, maxConcurrency, sectionIntervals, type Interval } from '@zk-recipes/testing';
import { SMALL_JVM, startCuratorFleet, startNodeFleet, untilChildren, type Fleet } from '../lib/fleets.js';
import { percentile } from '../lib/stats.js';
import { readServerCounters, serverCost } from './serverCounters.js';

/** Who runs a scenario: a zk-recipes build (its worker script) or Curator. */
export type Contender = { kind: 'node'; name: string; worker: string } | { kind: 'curator'; name: string };

const FINISH_MS = 300_000;

/** One group of identical processes: the worker's mode and the same for Curator. */
interface Group {
  count: number;
  /** Sections each process runs. */
  iterations: number;
  /** Arguments of bench/compare/worker.ts after the connect string and path's place. */
  node: (connect: string, path: string) => string[];
  curator: (connect: string, path: string) => string[];
  javaOptions?: readonly string[];
}

function startGroup(c: Contender, g: Group, connect: string, path: string): Promise<Fleet> {
  return c.kind === 'node' ? startNodeFleet(c.worker, g.count, g.node(connect, path)) : startCuratorFleet(g.count, g.curator(connect, path), g.javaOptions);
}

/** Starts every group (one after the other: start-up load stays bounded) as one fleet. */
async function startGroups(c: Contender, groups: readonly Group[], connect: string, path: string): Promise<Fleet> {
  const fleets: Fleet[] = [];
  try {
    for (const g of groups) fleets.push(await startGroup(c, g, connect, path));
  } catch (err) {
    await Promise.all(fleets.map((f) => f.stop()));
    throw err;
  }
  return {
    go: () => fleets.forEach((f) => f.go()),
    finished: async (timeoutMs) => (await Promise.all(fleets.map((f) => f.finished(timeoutMs)))).flat(),
    stop: async () => {
      await Promise.all(fleets.map((f) => f.stop()));
    },
  };
}

/** Client CPU in ms over every process's `done` line (Node: cpuUs; Curator: cpuNs). */
function cpuMs(lines: readonly unknown[]): number {
  let ms = 0;
  for (const l of lines as Array<{ type?: string; cpuUs?: number; cpuNs?: string | number }>) {
    if (l.type !== 'done' && l.type !== 'bench') continue;
    if (l.cpuUs !== undefined) ms += l.cpuUs / 1000;
    else if (l.cpuNs !== undefined) ms += Number(l.cpuNs) / 1e6;
  }
  return ms;
}

/** A loop scenario's figures for one contender in one repetition. */
export interface LoopRep {
  sections: number;
  sectionsPerSecond: number;
  requestsPerSection: number;
  writesPerSection: number;
  notificationsPerRelease: number;
  cpuMsPerSection: number;
  /** The most sections open at one instant (leases held at once, readers sharing). */
  maxConcurrent: number;
}

/**
 * Runs `groups` looping on one lock at `path` and measures: throughput from the first section's
 * start to the last one's end; the servers' counts per section; CPU per section. `exclusive`
 * sections (a write section, or any section of a mutex) must overlap nothing; at most
 * `maxConcurrent` sections may be open at once.
 */
async function runLoop(
  c: Contender,
  session: ZkSession,
  connect: string,
  path: string,
  groups: readonly Group[],
  check: { maxConcurrent: number; exclusiveLock?: string; directoryData?: Uint8Array },
): Promise<LoopRep> {
  const processes = groups.reduce((n, g) => n + g.count, 0);
  // The lock's directory exists, as it does for a lock in use: no contender pays for creating it.
  await session.mkdirp(path, 'persistent', { data: check.directoryData });
  const fleet = await startGroups(c, groups, connect, path);
  let lines: unknown[];
  const before = await readServerCounters(connect);
  try {
    fleet.go();
    lines = await fleet.finished(FINISH_MS);
  } finally {
    await fleet.stop();
  }
  const after = await readServerCounters(connect);
  const sections = sectionIntervals(lines);
  const expected = groups.reduce((n, g) => n + g.count * g.iterations, 0);
  if (sections.length !== expected) throw new Error(`${c.name}: ${sections.length} sections, expected ${expected}`);
  if (findOverlaps(sections, { maxConcurrent: check.maxConcurrent }).length > 0) throw new Error(`${c.name}: more than ${check.maxConcurrent} sections at once: the lock is broken`);
  if (check.exclusiveLock !== undefined) assertExclusive(c.name, lines, check.exclusiveLock);
  const first = sections.reduce((m, s) => (s.start < m ? s.start : m), sections[0]!.start);
  const last = sections.reduce((m, s) => (s.end > m ? s.end : m), 0n);
  const cost = serverCost(before, after, processes);
  return {
    sections: sections.length,
    sectionsPerSecond: (sections.length * 1e9) / Number(last - first),
    requestsPerSection: cost.requests / sections.length,
    writesPerSection: cost.writes / sections.length,
    notificationsPerRelease: cost.notifications / sections.length,
    cpuMsPerSection: cpuMs(lines) / sections.length,
    maxConcurrent: maxConcurrency(sections),
  };
}

/** Sections of lock `kind` (`write`) overlap no other section. */
function assertExclusive(name: string, lines: readonly unknown[], kind: string): void {
  const sections = (lines as Array<{ type?: string; lock?: string; start: string; end: string }>)
    .filter((l) => l.type === 'section')
    .map((l) => ({ lock: l.lock, start: BigInt(l.start), end: BigInt(l.end) }));
  if (findOverlaps(sections).some((o) => o.intervals.some((s) => s.lock === kind))) {
    throw new Error(`${name}: a ${kind} section overlaps another section: the lock is broken`);
  }
}

/** N processes on one mutex, hold `holdMs`. */
export function mutexLoop(c: Contender, session: ZkSession, connect: string, path: string, o: { processes: number; iterations: number; holdMs: number }): Promise<LoopRep> {
  const args = [String(o.iterations), String(o.holdMs)];
  return runLoop(c, session, connect, path, [{ count: o.processes, iterations: o.iterations, node: (cs, p) => ['mutex', cs, p, ...args], curator: (cs, p) => ['mutex', cs, p, ...args] }], { maxConcurrent: 1 });
}

/** Readers and writers on one read/write lock. */
export function readWriteLoop(c: Contender, session: ZkSession, connect: string, path: string, o: { readers: number; writers: number; iterations: number; holdMs: number }): Promise<LoopRep> {
  const args = [String(o.iterations), String(o.holdMs)];
  const group = (count: number, kind: 'read' | 'write'): Group => ({
    count,
    iterations: o.iterations,
    node: (cs, p) => [kind, cs, p, ...args],
    curator: (cs, p) => [`rw-${kind}`, cs, p, ...args],
  });
  return runLoop(c, session, connect, path, [group(o.readers, 'read'), group(o.writers, 'write')], { maxConcurrent: o.readers, exclusiveLock: 'write' });
}

/** Processes on a semaphore of `leases`. */
export function semaphoreLoop(c: Contender, session: ZkSession, connect: string, path: string, o: { processes: number; leases: number; iterations: number; holdMs: number }): Promise<LoopRep> {
  const args = [String(o.iterations), String(o.holdMs)];
  return runLoop(
    c,
    session,
    connect,
    path,
    [{ count: o.processes, iterations: o.iterations, node: (cs, p) => ['semaphore', cs, p, ...args, String(o.leases)], curator: (cs, p) => ['semaphore', cs, p, String(o.leases), ...args] }],
    // The semaphore's directory records its maxLeases as decimal text (docs/semaphore.md,
    // "maxLeases consistency"); Curator's layout keeps its nodes below it and ignores its data.
    { maxConcurrent: o.leases, directoryData: Buffer.from(String(o.leases)) },
  );
}

/** One process, a warm session, `n` acquire + release pairs one after the other. */
export interface UncontendedRep {
  acquireP50Us: number;
  releaseP50Us: number;
  requestsPerCycle: number;
  cpuMsPerCycle: number;
}

export async function uncontended(c: Contender, session: ZkSession, connect: string, path: string, o: { n: number; warmup: number }): Promise<UncontendedRep> {
  await session.mkdirp(path);
  const group: Group = {
    count: 1,
    iterations: o.n,
    node: (cs, p) => ['uncontended', cs, p, String(o.n), String(o.warmup)],
    curator: (cs, p) => ['--warmup', String(o.warmup), 'bench-uncontended', cs, p, String(o.n)],
  };
  const fleet = await startGroups(c, [group], connect, path);
  let lines: unknown[];
  const before = await readServerCounters(connect);
  try {
    fleet.go();
    lines = await fleet.finished(FINISH_MS);
  } finally {
    await fleet.stop();
  }
  const after = await readServerCounters(connect);
  const bench = lines.find((l) => (l as { type?: string }).type === 'bench') as { acquireNs: number[]; releaseNs: number[] } | undefined;
  if (bench === undefined) throw new Error(`${c.name}: no bench line`);
  return {
    acquireP50Us: percentile(bench.acquireNs, 0.5) / 1000,
    releaseP50Us: percentile(bench.releaseNs, 0.5) / 1000,
    // The server counts the warm-up too: it runs after "go" (see the worker).
    requestsPerCycle: serverCost(before, after, 1).requests / (o.warmup + o.n),
    cpuMsPerCycle: cpuMs(lines) / o.n,
  };
}

/** `processes` processes queued behind a lock the bench holds, one section of `holdMs` each. */
export interface DrainRep {
  drainMs: number;
  /** drainMs / (processes x holdMs). */
  vsIdeal: number;
}

/**
 * The blocker is a plain lock node in the naming both libraries read (`_c_<uuid>-lock-<seq>`),
 * created and deleted by the bench's session: it is no build's code, so base, head and Curator
 * queue behind the same thing. The drain is timed from its delete to the last section's end.
 */
export async function drainQueue(c: Contender, session: ZkSession, connect: string, path: string, o: { processes: number; holdMs: number }): Promise<DrainRep> {
  await session.mkdirp(path);
  const blocker = await session.create(`${path}/_c_${randomUUID()}-lock-`, null, { mode: 'ephemeral_sequential' });
  let fleet: Fleet | undefined;
  let sections: Interval[];
  let releasedAt: bigint;
  let deleted = false;
  try {
    fleet = await startGroup(
      c,
      { count: o.processes, iterations: 1, node: (cs, p) => ['mutex', cs, p, '1', String(o.holdMs)], curator: (cs, p) => ['mutex', cs, p, '1', String(o.holdMs)], javaOptions: SMALL_JVM },
      connect,
      path,
    );
    fleet.go();
    await untilChildren(session, path, o.processes + 1, 240_000);
    releasedAt = process.hrtime.bigint();
    await session.delete(blocker.path);
    deleted = true;
    sections = sectionIntervals(await fleet.finished(FINISH_MS));
  } finally {
    if (!deleted) await session.delete(blocker.path).catch(() => undefined);
    await fleet?.stop();
  }
  if (sections.length !== o.processes) throw new Error(`${c.name}: ${sections.length} sections, expected ${o.processes}`);
  if (findOverlaps(sections).length > 0) throw new Error(`${c.name}: critical sections overlap: the lock is broken`);
  const last = sections.reduce((m, s) => (s.end > m ? s.end : m), 0n);
  const drainMs = Number(last - releasedAt) / 1e6;
  return { drainMs, vsIdeal: drainMs / (o.processes * o.holdMs) };
}
