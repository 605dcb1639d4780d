/**
 * The markdown report of `npm run bench:compare`: for every case (a scenario in a shape), each
 * contender's median and min-max over the repetitions, and every ratio's median and min-max over
 * the repetitions (each repetition's head against the same repetition's Curator, base or floor:
 * they ran back to back). Then the floors the project holds itself to, and the cold starts.
 */
import type { MachineInfo } from '../lib/machine.js';
import { median } from '../lib/stats.js';
import { markdownTable } from '../lib/table.js';
import { SCENARIOS, type ContenderName, type DrainRep, type LoopRep, type Rep, type ScenarioName, type Sizes, type Timing } from './scenarios.js';
import type { Shape } from './shapes.js';

export interface CaseResult {
  /** `mutex8`, `mutex8 pinned`, ... */
  id: string;
  scenario: ScenarioName;
  shape: Shape;
  contenders: ContenderName[];
  reps: Partial<Record<ContenderName, Rep[]>>;
}

export interface CompareReport {
  command: string;
  machine: MachineInfo;
  zookeeper: { standalone?: string; ensemble?: string };
  base: { commit: string; label: string; dependencies: string };
  head: { commit: string; label: string; dirty: boolean };
  library: 'source' | 'dist';
  reps: number;
  timing: Timing;
  sizes: Sizes;
  shapes: Partial<Record<Shape, string>>;
  cases: CaseResult[];
  wallSeconds: number;
}

const LABEL: Record<ContenderName, string> = { base: 'base', head: 'head', curator: 'Curator 5.4', floor: 'wire floor' };

/** A figure of a repetition and how to print it. */
interface Metric {
  name: string;
  of: (rep: Rep) => number;
  digits: number;
  /** Ratios of this metric are meaningful (not for counts that only describe). */
  ratio?: boolean;
}

const loop = (f: (r: LoopRep) => number): ((r: Rep) => number) => (r) => (r.kind === 'loop' ? f(r) : Number.NaN);
const drain = (f: (r: DrainRep) => number): ((r: Rep) => number) => (r) => (r.kind === 'drain' ? f(r) : Number.NaN);

const THROUGHPUT: Metric = { name: 'sections/s', of: loop((r) => r.sectionsPerSecond), digits: 0, ratio: true };
const COSTS: Metric[] = [
  { name: 'requests per section (server packets)', of: loop((r) => r.requestsPerSection), digits: 2 },
  { name: 'writes per section (zxid)', of: loop((r) => r.writesPerSection), digits: 2 },
  { name: 'watch notifications per section', of: loop((r) => r.notificationsPerSection), digits: 2 },
  { name: 'client CPU per section, all processes (ms)', of: loop((r) => r.cpuMsPerSection), digits: 3, ratio: true },
];
const MOST_AT_ONCE = (what: string): Metric => ({ name: `most ${what} at once`, of: loop((r) => r.maxConcurrent), digits: 0 });

function metricsOf(s: ScenarioName): Metric[] {
  switch (s) {
    case 'uncontended':
      return [
        { name: 'acquire p50 (µs)', of: loop((r) => r.acquireP50Us), digits: 0, ratio: true },
        { name: 'release p50 (µs)', of: loop((r) => r.releaseP50Us), digits: 0, ratio: true },
        { name: 'acquire p99 (µs)', of: loop((r) => r.acquireP99Us), digits: 0, ratio: true },
        { name: 'acquire + release per second', of: loop((r) => r.sectionsPerSecond), digits: 0, ratio: true },
        { name: 'requests per acquire + release', of: loop((r) => r.requestsPerSection), digits: 2 },
        { name: 'writes per acquire + release', of: loop((r) => r.writesPerSection), digits: 2 },
        { name: 'client CPU per acquire + release (ms)', of: loop((r) => r.cpuMsPerSection), digits: 3, ratio: true },
      ];
    case 'queue64':
      return [
        { name: 'drain time, median of the rounds (ms)', of: drain((r) => r.drainMs), digits: 0, ratio: true },
        { name: 'drain / ideal (processes x hold)', of: drain((r) => r.vsIdeal), digits: 2 },
      ];
    case 'rw':
    case 'ensemble-rw':
      return [THROUGHPUT, ...COSTS, MOST_AT_ONCE('readers')];
    case 'semaphore':
    case 'ensemble-semaphore':
      return [THROUGHPUT, ...COSTS, MOST_AT_ONCE('leases in use')];
    default:
      return [THROUGHPUT, ...COSTS];
  }
}

const fmt = (v: number, digits: number): string => (Number.isFinite(v) ? v.toFixed(digits) : 'n/a');

/** `median (min-max)` of `values`. */
function spread(values: readonly number[], digits: number, suffix = ''): string {
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return 'n/a';
  const m = fmt(median(finite), digits);
  if (finite.length === 1) return `${m}${suffix}`;
  return `${m}${suffix} (${fmt(Math.min(...finite), digits)}-${fmt(Math.max(...finite), digits)})`;
}

/** Per repetition `a[i] / b[i]`, for the repetitions both have. */
function ratios(a: readonly Rep[] | undefined, b: readonly Rep[] | undefined, of: (r: Rep) => number): number[] {
  if (a === undefined || b === undefined) return [];
  return a.slice(0, b.length).map((r, i) => of(r) / of(b[i]!));
}

function titleOf(c: CaseResult, sizes: Sizes, shapes: CompareReport['shapes']): string {
  const server = SCENARIOS[c.scenario].ensemble ? '' : ', standalone server';
  const shape = c.shape === 'pinned' ? `, pinned (${shapes.pinned ?? ''})` : SCENARIOS[c.scenario].contended ? ', shared cores' : '';
  return `${SCENARIOS[c.scenario].title(sizes)}${server}${shape}`;
}

/** The pairs of contenders whose ratio each case prints. */
function pairsOf(c: CaseResult): Array<[ContenderName, ContenderName]> {
  const pairs: Array<[ContenderName, ContenderName]> = [];
  const has = (n: ContenderName): boolean => (c.reps[n]?.length ?? 0) > 0;
  if (has('head') && has('curator')) pairs.push(['head', 'curator']);
  if (has('head') && has('floor')) pairs.push(['head', 'floor']);
  if (has('head') && has('base')) pairs.push(['head', 'base']);
  if (has('base') && has('curator') && !has('head')) pairs.push(['base', 'curator']);
  return pairs;
}

function caseTable(c: CaseResult): string {
  const present = c.contenders.filter((n) => (c.reps[n]?.length ?? 0) > 0);
  const pairs = pairsOf(c);
  const rows = metricsOf(c.scenario).map((m) => [
    m.name,
    ...present.map((n) => spread(c.reps[n]!.map(m.of), m.digits)),
    ...pairs.map(([a, b]) => (m.ratio === true ? spread(ratios(c.reps[a], c.reps[b], m.of), 2, 'x') : '')),
  ]);
  return markdownTable(['', ...present.map((n) => LABEL[n]), ...pairs.map(([a, b]) => `${LABEL[a]} / ${LABEL[b]}`)], rows);
}

function warmLine(c: CaseResult, t: Timing): string {
  const measured = (n: ContenderName): Array<LoopRep | DrainRep> => (c.reps[n] ?? []).filter((r): r is LoopRep | DrainRep => r.kind !== 'failed');
  const all = c.contenders.flatMap((n) => c.reps[n] ?? []);
  const short = all.filter((r) => r.kind !== 'failed' && r.warm.short).length;
  const failed = all.filter((r) => r.kind === 'failed');
  const per = c.contenders
    .filter((n) => measured(n).length > 0)
    .map((n) => `${LABEL[n]} ${Math.min(...measured(n).map((r) => r.warm.minSections))} sections in ${spread(measured(n).map((r) => r.warm.seconds), 0, ' s')}`)
    .join('; ');
  const drainRounds = c.contenders.flatMap(measured).find((r): r is DrainRep => r.kind === 'drain')?.roundsMs.length ?? 0;
  const windowText = c.scenario === 'queue64' ? `${drainRounds} drain rounds` : `window ${t.windowMs / 1000} s`;
  const notes = [
    short > 0 ? `**${short} run(s) reached the ${t.warmupMaxMs / 1000} s cap short of the warm-up.**` : '',
    failed.length > 0 ? `**${failed.length} run(s) failed and have no figures** (first: ${failed[0]!.kind === 'failed' ? failed[0]!.error.split('\n')[0] : ''}).` : '',
  ].filter((x) => x !== '');
  return `Warm-up (fewest sections held by one process before its window; time from start to window): ${per}. Then ${windowText}.${notes.length > 0 ? ` ${notes.join(' ')}` : ''}`;
}

/** A floor the project holds itself to, judged on the median of the repetitions. */
interface Target {
  name: string;
  values: number[];
  limit: number;
  kind: 'min' | 'max';
  digits: number;
  suffix: string;
  /** Judged on the lowest repetition, not the median (e.g. "in every repetition"). */
  every?: boolean;
}

function targetsOf(cases: readonly CaseResult[]): Target[] {
  const out: Target[] = [];
  const find = (s: ScenarioName, shape: Shape): CaseResult | undefined => cases.find((c) => c.scenario === s && c.shape === shape);
  const vs = (c: CaseResult | undefined, other: ContenderName, of: (r: Rep) => number): number[] => (c === undefined ? [] : ratios(c.reps.head, c.reps[other], of));
  const add = (name: string, values: number[], kind: 'min' | 'max', limit: number, digits = 2, suffix = 'x', every = false): void => {
    if (values.length > 0) out.push({ name, values, kind, limit, digits, suffix, every });
  };
  const tput = loop((r) => r.sectionsPerSecond);
  add('8-process mutex, shared cores: head / Curator sections/s', vs(find('mutex8', 'shared'), 'curator', tput), 'min', 1.6);
  add('8-process mutex, server on its own core: head / Curator', vs(find('mutex8', 'pinned'), 'curator', tput), 'min', 2.0);
  add('8-process mutex, 3-server ensemble: head / Curator', vs(find('ensemble', 'shared'), 'curator', tput), 'min', 1.5);
  for (const shape of ['shared', 'pinned'] as const) {
    const c = find('semaphore', shape);
    add(`semaphore of 3, 12 processes, 2 ms holds (${shape}): head / Curator`, vs(c, 'curator', tput), 'min', 3.0);
    add(`semaphore (${shape}): head's most leases in use at once, in every repetition`, c?.reps.head?.map(loop((r) => r.maxConcurrent)) ?? [], 'min', 3, 0, '', true);
    add(`semaphore (${shape}): head's writes per section`, c?.reps.head?.map(loop((r) => r.writesPerSection)) ?? [], 'max', 2, 2, '');
    add(`per-entity (${shape}): head / wire floor sections/s`, vs(find('entities', shape), 'floor', tput), 'min', 0.9);
    add(`64-process drain (${shape}): head's drain / ideal`, find('queue64', shape)?.reps.head?.map(drain((r) => r.vsIdeal)) ?? [], 'max', 1.15);
    add(`read/write 6 + 2 (${shape}): head / Curator`, vs(find('rw', shape), 'curator', tput), 'min', 2.0);
  }
  const unc = find('uncontended', 'shared');
  add('uncontended acquire p50: head / Curator', vs(unc, 'curator', loop((r) => r.acquireP50Us)), 'max', 0.75);
  add('uncontended release p50: head / Curator', vs(unc, 'curator', loop((r) => r.releaseP50Us)), 'max', 1.0);
  return out;
}

function targetTable(cases: readonly CaseResult[]): string {
  const rows = targetsOf(cases).map((t) => {
    const finite = t.values.filter(Number.isFinite);
    const judged = finite.length === 0 ? Number.NaN : t.every === true ? Math.min(...finite) : median(finite);
    const pass = t.kind === 'min' ? judged >= t.limit : judged <= t.limit;
    return [t.name, spread(t.values, t.digits, t.suffix), `${t.kind === 'min' ? '≥' : '≤'} ${t.limit}${t.suffix}`, `${t.every === true ? 'lowest' : 'median'} ${pass ? 'meets it' : 'MISSES it'}`];
  });
  return markdownTable(['floor', 'measured: median (min-max)', 'floor', 'verdict'], rows);
}

function coldTable(cases: readonly CaseResult[], sizes: Sizes, shapes: CompareReport['shapes']): string {
  const cold = loop((r) => r.coldSectionsPerSecond);
  const rows = cases
    .filter((c) => c.scenario !== 'queue64' && c.scenario !== 'uncontended')
    .map((c) => [
      titleOf(c, sizes, shapes),
      ...(['base', 'head', 'curator'] as const).map((n) => (c.reps[n] === undefined ? '' : spread(c.reps[n]!.map(cold), 0))),
      spread(ratios(c.reps.head, c.reps.curator, cold), 2, 'x'),
    ]);
  return markdownTable(['sections/s over the first 100 sections of each process', 'base', 'head', 'Curator 5.4', 'head / Curator'], rows);
}

export function compareMarkdown(r: CompareReport): string {
  const t = r.timing;
  const out: string[] = [
    `Command: \`${r.command}\`; wall time ${(r.wallSeconds / 60).toFixed(0)} min; ${r.reps} repetition(s), interleaved (base, head, Curator, ... then the next repetition).`,
    `Base: \`${r.base.label}\` (${r.base.commit.slice(0, 12)}; dependencies ${r.base.dependencies}). Head: the working tree at \`${r.head.label}\`${r.head.dirty ? ' with uncommitted changes' : ''}. Library: ${r.library === 'dist' ? 'compiled (dist/)' : 'TypeScript sources through tsx'}.`,
    `Machine: ${r.machine.nproc} CPUs (nproc), ${r.machine.cpuModel}, ${r.machine.memoryGiB.toFixed(1)} GiB RAM; Node ${r.machine.node}; load average at the end ${r.machine.loadAverage}. Shapes: ${Object.entries(r.shapes).map(([k, v]) => `${k}: ${v}`).join('; ')}.`,
    `ZooKeeper: ${[r.zookeeper.standalone === undefined ? '' : `standalone ${r.zookeeper.standalone}`, r.zookeeper.ensemble === undefined ? '' : `3-server ensemble ${r.zookeeper.ensemble}`].filter((s) => s !== '').join('; ')}; fsync on every transaction-log write.`,
    `Every process first runs the scenario's own work, all of a run's processes together, until each has held ${t.warmupSections} sections and ${t.warmupMs / 1000} s have passed (at most ${t.warmupMaxMs / 1000} s); then all measure the same ${t.windowMs / 1000} s window, and keep running ${t.tailMs / 1000} s past it. Figures: the median of the repetitions, (min-max) beside it; a ratio is taken within each repetition, then its median and min-max.`,
    'Requests and notifications are the servers\' packet counters over the window (pings included), writes the growth of the zxid (a refused write is a transaction too); client CPU is process.cpuUsage() / the JVM\'s process CPU time over the window, summed over the processes.',
    '',
    '### Floors',
    '',
    targetTable(r.cases),
  ];
  for (const c of r.cases) {
    out.push('', `### ${titleOf(c, r.sizes, r.shapes)}`, '', warmLine(c, t), '', caseTable(c));
  }
  out.push('', '### Cold start (not warmed up; not the figures to quote)', '', 'The same runs, over their first 100 sections per process after the start: what the earlier, unwarmed bench measured.', '', coldTable(r.cases, r.sizes, r.shapes));
  return out.join('\n');
}
