/**
 * `npm run bench:compare`: two builds of zk-recipes and Apache Curator 5.4 side by side, in one
 * run, repetitions interleaved (base, head, Curator, then the next repetition) so that the load of
 * a shared machine hits all alike. BASE is a commit (default: where HEAD left main), checked out
 * into a temporary git worktree; HEAD is this working tree, uncommitted changes included. Both
 * builds run the same worker (bench/compare/worker.ts, public API only), copied into the base
 * checkout.
 *
 * Every process, Node or JVM, first runs the scenario's own work, all the processes of a run
 * together against the same server, until each has held --warmup-sections sections (2,000) and
 * --warmup-ms (10 s) have passed; then all of them measure one window of --window-ms (5 s) that
 * opens at the same instant for all (bench/compare/window.ts says how without disturbing the JIT).
 *
 * Scenarios (`--scenario a,b`; all by default):
 *   mutex8       8 processes on one mutex, hold 0
 *   uncontended  one process, one mutex: acquire p50, release p50, requests and CPU per cycle
 *   queue64      64 processes queued behind a held lock, 20 ms holds: drain vs 64 x 20 ms, 4 rounds
 *   rw           6 readers + 2 writers, 1 ms holds
 *   semaphore    12 processes, 3 leases, 2 ms holds (most leases in use at once)
 *   entities     4 processes x 32 concurrent tasks (Curator: 32 threads), a mutex per key of 1,000,
 *                1 ms holds; and the wire floor (node-zookeeper-client alone sending the same
 *                create, listing and delete per section, no lock logic)
 *   ensemble, ensemble-rw, ensemble-semaphore   mutex8, rw and semaphore on a 3-server ensemble
 * The contended standalone ones (mutex8, queue64, rw, semaphore, entities) run in two shapes
 * (--shapes, both by default): `shared` (every process on every core) and `pinned` (the server on
 * one core, everything else on the others; bench/compare/shapes.ts). On each fresh server a
 * discarded round of every selected scenario, every contender, warms the server first.
 *
 * Usage: npm run bench:compare -- [--base <rev>] [--reps N] [--quick] [--scenario a,b]
 *        [--shapes shared,pinned] [--standalone | --ensemble] [--contenders base,head,curator]
 *        [--dist] [--json] [--warmup-sections N] [--warmup-ms N] [--warmup-max-ms N] [--window-ms N]
 *   --dist   measure the compiled builds (tsc -b in both checkouts) instead of the sources via tsx
 *   --quick  one repetition, everything tiny: checks that the harness runs, measures nothing
 * Prints markdown (and with --json one JSON line of every repetition's figures).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ZkSession } from '@zk-recipes/core';
import { TestingCluster, TestingServer } from '@zk-recipes/testing';
import { createBaseTree, resolveBase, type BaseTree } from './compare/baseTree.js';
import { compareMarkdown, type CaseResult, type CompareReport } from './compare/report.js';
import { BrokenLockError, runDrain, runLoop, SCENARIOS, type Contender, type ContenderName, type Rep, type RunContext, type ScenarioName, type Sizes, type Timing } from './compare/scenarios.js';
import { affinityOf, Placement, SHAPES, type Shape } from './compare/shapes.js';
import { numberFlag } from './lib/flags.js';
import { machineInfo, zookeeperVersion } from './lib/machine.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const WORKER_FILES = ['bench/compare/worker.ts', 'bench/compare/window.ts'];
const FLOOR_WORKER = join(REPO, 'bench/compare/floorWorker.ts');
const STANDALONE: readonly ScenarioName[] = ['mutex8', 'uncontended', 'queue64', 'rw', 'semaphore', 'entities'];
const ENSEMBLE: readonly ScenarioName[] = ['ensemble', 'ensemble-rw', 'ensemble-semaphore'];
const ALL: readonly ScenarioName[] = [...STANDALONE, ...ENSEMBLE];

const FULL: { reps: number; timing: Timing; sizes: Sizes; serverWarmupMs: number } = {
  reps: 5,
  timing: { warmupSections: 2000, warmupMs: 10_000, warmupMaxMs: 600_000, windowMs: 5_000, leadMs: 1_000, tailMs: 1_000 },
  sizes: { queueProcesses: 64, drainRounds: 4, entityProcesses: 4, entityTasks: 32, entityKeys: 1000 },
  serverWarmupMs: 3_000,
};
const QUICK: typeof FULL = {
  reps: 1,
  timing: { warmupSections: 20, warmupMs: 1_000, warmupMaxMs: 60_000, windowMs: 1_000, leadMs: 500, tailMs: 300 },
  sizes: { queueProcesses: 8, drainRounds: 2, entityProcesses: 2, entityTasks: 4, entityKeys: 50 },
  serverWarmupMs: 500,
};

function log(message: string): void {
  process.stderr.write(`[bench:compare ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

function flagValue(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

function listFlag<T extends string>(argv: readonly string[], name: string, known: readonly T[], fallback: readonly T[]): T[] {
  const named = flagValue(argv, name);
  const list = named === undefined ? [...fallback] : (named.split(',') as T[]);
  const unknown = list.filter((s) => !known.includes(s));
  if (unknown.length > 0) throw new Error(`${name}: unknown ${unknown.join(', ')}; known: ${known.join(', ')}`);
  return list;
}

/** The cases of a server, in the order each repetition runs them: every scenario in each of its shapes. */
function casesOf(scenarios: readonly ScenarioName[], shapes: readonly Shape[]): Array<{ scenario: ScenarioName; shape: Shape }> {
  return scenarios.flatMap((scenario) => (SCENARIOS[scenario].contended ? shapes : (['shared'] as const)).map((shape) => ({ scenario, shape })));
}

function contendersOf(scenario: ScenarioName, chosen: readonly ContenderName[]): ContenderName[] {
  return [...chosen.filter((n) => n !== 'floor'), ...(SCENARIOS[scenario].floor ? (['floor'] as const) : [])];
}

function runOnce(scenario: ScenarioName, c: Contender, ctx: RunContext, path: string): Promise<Rep> {
  return scenario === 'queue64' ? runDrain(c, ctx, path) : runLoop(scenario, c, ctx, path);
}

/** Every case of one server: the discarded round, then `reps` repetitions, contenders interleaved. */
async function runOn(
  connect: string,
  serverPids: readonly number[],
  cases: ReadonlyArray<{ scenario: ScenarioName; shape: Shape }>,
  contenders: Partial<Record<ContenderName, Contender>>,
  chosen: readonly ContenderName[],
  o: { reps: number; timing: Timing; sizes: Sizes; serverWarmupMs: number },
  placement: Placement,
  report: CompareReport,
): Promise<void> {
  const session = await ZkSession.connect({ connectString: connect, sessionTimeoutMs: 30_000 });
  const root = `/zk-recipes-bench/compare-${Date.now().toString(36)}`;
  const ctx: RunContext = { session, connect, timing: o.timing, sizes: o.sizes, log };
  const results = cases.map((k): CaseResult => ({ id: `${k.scenario} ${k.shape}`, scenario: k.scenario, shape: k.shape, contenders: contendersOf(k.scenario, chosen), reps: {} }));
  report.cases.push(...results);
  try {
    // Discarded: a fresh server JVM is still compiling, and whoever ran first would pay for it.
    // The 64-process drain is left out (the other scenarios warm the same requests).
    const warmServer: RunContext = { ...ctx, timing: { ...o.timing, warmupSections: 0, warmupMs: o.serverWarmupMs, windowMs: 1_000 } };
    for (const scenario of [...new Set(cases.map((k) => k.scenario))].filter((s) => s !== 'queue64')) {
      for (const name of contendersOf(scenario, chosen)) {
        log(`server warm-up (discarded): ${scenario}, ${name}`);
        await runOnce(scenario, contenders[name]!, warmServer, `${root}/server-warmup-${scenario}-${name}`).catch((err: unknown) => {
          if (err instanceof BrokenLockError) throw err;
          log(`server warm-up (discarded): ${scenario}, ${name} failed, not counted: ${String(err)}`);
        });
      }
    }
    for (let rep = 0; rep < o.reps; rep++) {
      for (const [i, k] of cases.entries()) {
        placement.apply(k.shape, serverPids);
        if (k.shape === 'pinned') log(`pinned: servers on ${serverPids.map(affinityOf).join(' / ')}, contenders on ${affinityOf(process.pid)}`);
        for (const name of results[i]!.contenders) {
          log(`${k.scenario} ${k.shape} rep ${rep + 1}/${o.reps}: ${name}`);
          // A run that fails is reported as such and the bench goes on (hours of other runs are
          // worth keeping); a broken lock ends it.
          const result = await runOnce(k.scenario, contenders[name]!, ctx, `${root}/${k.scenario}-${k.shape}-${rep}-${name}`).catch((err: unknown): Rep => {
            if (err instanceof BrokenLockError) throw err;
            return { kind: 'failed', error: String(err).slice(0, 2000) };
          });
          log(`${k.scenario} ${k.shape} ${name}: ${JSON.stringify(result, (key, v: unknown) => (key === 'roundsMs' ? undefined : typeof v === 'number' ? Number(v.toPrecision(4)) : v))}`);
          (results[i]!.reps[name] ??= []).push(result);
        }
      }
    }
  } finally {
    placement.apply('shared', serverPids);
    await session.close();
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const began = Date.now();
  const preset = argv.includes('--quick') ? QUICK : FULL;
  const reps = numberFlag(argv, '--reps', preset.reps);
  const timing: Timing = {
    ...preset.timing,
    warmupSections: numberFlag(argv, '--warmup-sections', preset.timing.warmupSections),
    warmupMs: numberFlag(argv, '--warmup-ms', preset.timing.warmupMs),
    warmupMaxMs: numberFlag(argv, '--warmup-max-ms', preset.timing.warmupMaxMs),
    windowMs: numberFlag(argv, '--window-ms', preset.timing.windowMs),
  };
  const sizes = preset.sizes;
  let scenarios = listFlag(argv, '--scenario', ALL, ALL);
  if (argv.includes('--standalone')) scenarios = scenarios.filter((s) => STANDALONE.includes(s));
  if (argv.includes('--ensemble')) scenarios = scenarios.filter((s) => ENSEMBLE.includes(s));
  const shapes = listFlag(argv, '--shapes', SHAPES, SHAPES);
  const chosen = listFlag<ContenderName>(argv, '--contenders', ['base', 'head', 'curator'], ['base', 'head', 'curator']);
  const placement = new Placement();
  if (shapes.includes('pinned') && placement.canPin() !== undefined) throw new Error(`--shapes pinned: not here, ${placement.canPin()}; run with --shapes shared`);

  const dist = argv.includes('--dist');
  process.env.ZKR_LIBRARY = dist ? 'dist' : 'source';
  const git = (...args: string[]): string => execFileSync('git', ['-C', REPO, ...args], { encoding: 'utf8' }).trim();
  const baseCommit = resolveBase(REPO, flagValue(argv, '--base'));
  if (dist) {
    log('head: tsc -b');
    execFileSync(process.execPath, [join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '-b'], { cwd: REPO, stdio: 'inherit' });
  }
  const base: BaseTree | undefined = chosen.includes('base') ? createBaseTree(REPO, baseCommit, { workerFiles: WORKER_FILES, compile: dist, log }) : undefined;
  const onSignal = (): void => {
    base?.dispose();
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const contenders: Partial<Record<ContenderName, Contender>> = {
    base: base === undefined ? undefined : { kind: 'node', name: 'base', worker: join(base.dir, WORKER_FILES[0]!) },
    head: { kind: 'node', name: 'head', worker: join(REPO, WORKER_FILES[0]!) },
    curator: { kind: 'curator', name: 'curator' },
    floor: { kind: 'node', name: 'floor', worker: FLOOR_WORKER },
  };
  const report: CompareReport = {
    command: `npm run bench:compare${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`,
    machine: machineInfo(),
    zookeeper: {},
    base: base === undefined ? { commit: '-', label: '(not run)', dependencies: '-' } : { commit: base.commit, label: base.label, dependencies: base.dependencies },
    head: { commit: git('rev-parse', 'HEAD'), label: git('log', '-1', '--format=%h %s'), dirty: git('status', '--porcelain') !== '' },
    library: dist ? 'dist' : 'source',
    reps,
    timing,
    sizes,
    shapes: Object.fromEntries(shapes.map((s) => [s, placement.describe(s)])),
    cases: [],
    wallSeconds: 0,
  };
  const o = { reps, timing, sizes, serverWarmupMs: preset.serverWarmupMs };
  try {
    const standalone = casesOf(scenarios.filter((s) => STANDALONE.includes(s)), shapes);
    const ensemble = casesOf(scenarios.filter((s) => ENSEMBLE.includes(s)), shapes);
    if (standalone.length > 0) {
      const server = await TestingServer.start({ forceSync: true });
      try {
        report.zookeeper.standalone = await zookeeperVersion(server.connectString);
        await runOn(server.connectString, [server.pid], standalone, contenders, chosen, o, placement, report);
      } finally {
        await server.stop();
      }
    }
    if (ensemble.length > 0) {
      const cluster = await TestingCluster.start({ forceSync: true });
      try {
        report.zookeeper.ensemble = await zookeeperVersion(cluster.connectString);
        await runOn(cluster.connectString, cluster.servers.map((s) => s.pid), ensemble, contenders, chosen, o, placement, report);
      } finally {
        await cluster.stop();
      }
    }
  } finally {
    base?.dispose();
  }
  report.machine = machineInfo();
  report.wallSeconds = (Date.now() - began) / 1000;
  process.stdout.write(`${compareMarkdown(report)}\n`);
  if (argv.includes('--json')) process.stdout.write(`${JSON.stringify(report)}\n`);
}

await main();
