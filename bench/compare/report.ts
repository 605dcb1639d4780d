/** The markdown report of `npm run bench:compare`: medians per contender and the ratios head/Curator, head/base. */
import type { MachineInfo } from '../lib/machine.js';
import { fmtRatio, median } from '../lib/stats.js';
import { markdownTable } from '../lib/table.js';
import type { DrainRep, LoopRep, UncontendedRep } from './scenarios.js';

export const CONTENDERS = ['base', 'head', 'curator'] as const;
export type ContenderName = (typeof CONTENDERS)[number];

export type ScenarioName = 'mutex8' | 'uncontended' | 'queue64' | 'rw' | 'semaphore' | 'ensemble' | 'ensemble-rw' | 'ensemble-semaphore';
export type Rep = LoopRep | UncontendedRep | DrainRep;

export interface CompareReport {
  command: string;
  machine: MachineInfo;
  zookeeper: { standalone?: string; ensemble?: string };
  base: { commit: string; label: string; dependencies: string };
  head: { commit: string; label: string; dirty: boolean };
  library: 'source' | 'dist';
  reps: number;
  /** What each scenario ran (sizes), for its heading. */
  scenarios: Partial<Record<ScenarioName, { title: string }>>;
  results: Partial<Record<ScenarioName, Record<ContenderName, Rep[]>>>;
  wallSeconds: number;
}

/** One row: a metric of the scenario's reps and how to print it. */
interface Metric {
  name: string;
  of: (rep: Rep) => number;
  digits: number;
  /** `max`: the row shows the highest rep rather than the median (e.g. leases seen at once). */
  aggregate?: 'median' | 'max';
}

const LOOP_METRICS: Metric[] = [
  { name: 'sections/s', of: (r) => (r as LoopRep).sectionsPerSecond, digits: 0 },
  { name: 'requests per section (server packets)', of: (r) => (r as LoopRep).requestsPerSection, digits: 2 },
  { name: 'writes per section (zxid)', of: (r) => (r as LoopRep).writesPerSection, digits: 2 },
  { name: 'watch notifications per release', of: (r) => (r as LoopRep).notificationsPerRelease, digits: 2 },
  { name: 'client CPU per section, all processes (ms)', of: (r) => (r as LoopRep).cpuMsPerSection, digits: 3 },
];

const RW_METRICS: Metric[] = [...LOOP_METRICS, { name: 'most readers at once', of: (r) => (r as LoopRep).maxConcurrent, digits: 0, aggregate: 'max' }];
const SEMAPHORE_METRICS: Metric[] = [...LOOP_METRICS, { name: 'most leases held at once', of: (r) => (r as LoopRep).maxConcurrent, digits: 0, aggregate: 'max' }];

const METRICS: Record<ScenarioName, Metric[]> = {
  mutex8: LOOP_METRICS,
  ensemble: LOOP_METRICS,
  rw: RW_METRICS,
  'ensemble-rw': RW_METRICS,
  semaphore: SEMAPHORE_METRICS,
  'ensemble-semaphore': SEMAPHORE_METRICS,
  uncontended: [
    { name: 'acquire p50 (µs)', of: (r) => (r as UncontendedRep).acquireP50Us, digits: 0 },
    { name: 'release p50 (µs)', of: (r) => (r as UncontendedRep).releaseP50Us, digits: 0 },
    { name: 'requests per acquire + release (server packets)', of: (r) => (r as UncontendedRep).requestsPerCycle, digits: 2 },
    { name: 'client CPU per acquire + release (ms)', of: (r) => (r as UncontendedRep).cpuMsPerCycle, digits: 3 },
  ],
  queue64: [
    { name: 'drain time (ms)', of: (r) => (r as DrainRep).drainMs, digits: 0 },
    { name: 'drain / ideal (processes x hold)', of: (r) => (r as DrainRep).vsIdeal, digits: 2 },
  ],
};

function aggregate(reps: readonly Rep[], m: Metric): number {
  const values = reps.map(m.of);
  return m.aggregate === 'max' ? Math.max(...values) : median(values);
}

/** The figures of one scenario: one row per metric, medians of the reps, then the ratios. */
function scenarioTable(name: ScenarioName, results: Record<ContenderName, Rep[]>): string {
  const rows = METRICS[name].map((m) => {
    const [base, head, curator] = CONTENDERS.map((c) => (results[c].length > 0 ? aggregate(results[c], m) : Number.NaN)) as [number, number, number];
    const perRep = (c: ContenderName): string => results[c].map((r) => m.of(r).toFixed(m.digits)).join(', ');
    return [m.name, base.toFixed(m.digits), head.toFixed(m.digits), curator.toFixed(m.digits), fmtRatio(head / curator), fmtRatio(head / base), `${perRep('base')} / ${perRep('head')} / ${perRep('curator')}`];
  });
  return markdownTable(['', 'base', 'head', 'Curator 5.4', 'head / Curator', 'head / base', 'per rep: base / head / Curator'], rows);
}

export function compareMarkdown(r: CompareReport): string {
  const out: string[] = [
    `Command: \`${r.command}\`; wall time ${r.wallSeconds.toFixed(0)} s; ${r.reps} repetition(s), interleaved (base, head, Curator, base, ...); medians.`,
    `Base: \`${r.base.label}\` (${r.base.commit.slice(0, 12)}; dependencies ${r.base.dependencies}). Head: the working tree at \`${r.head.label}\`${r.head.dirty ? ' with uncommitted changes' : ''}. Library: ${r.library === 'dist' ? 'compiled (dist/)' : 'TypeScript sources through tsx'}.`,
    `Machine: ${r.machine.nproc} CPUs (nproc), ${r.machine.cpuModel}, ${r.machine.memoryGiB.toFixed(1)} GiB RAM; Node ${r.machine.node}; load average at the end ${r.machine.loadAverage}.`,
    `ZooKeeper: ${[r.zookeeper.standalone === undefined ? '' : `standalone ${r.zookeeper.standalone}`, r.zookeeper.ensemble === undefined ? '' : `3-server ensemble ${r.zookeeper.ensemble}`].filter((s) => s !== '').join('; ')}; fsync on every transaction-log write.`,
    'Requests and notifications are the servers\' packet counters (pings included, session closes deducted), writes the growth of the zxid (a refused write, e.g. NODE_EXISTS, is a transaction too; session closes deducted); client CPU is process.cpuUsage() / the JVM\'s process CPU time from "go" to the loop\'s end, summed over the processes.',
  ];
  for (const [name, results] of Object.entries(r.results) as Array<[ScenarioName, Record<ContenderName, Rep[]>]>) {
    out.push('', `### ${r.scenarios[name]?.title ?? name}`, '', scenarioTable(name, results));
  }
  return out.join('\n');
}
