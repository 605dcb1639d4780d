/**
 * `npm run bench:compare`: two builds of zk-recipes and Apache Curator 5.4 side by side, in one
 * run, repetitions interleaved (base, head, Curator, base, head, ...) so that the load of a shared
 * machine hits all three alike. BASE is a commit (default: where HEAD left main), checked out into
 * a temporary git worktree; HEAD is this working tree, uncommitted changes included. Both builds
 * run the same worker (bench/compare/worker.ts, public API only), copied into the base checkout.
 *
 * Scenarios (`--scenario a,b`; all by default):
 *   mutex8       8 processes on one mutex, hold 0: sections/s, requests and writes per section,
 *                notifications per release, client CPU per section
 *   uncontended  one process, warm session: acquire p50, release p50, requests and CPU per cycle
 *   queue64      64 processes queued behind a held lock, 20 ms holds: drain time vs 64 x 20 ms
 *   rw           6 readers + 2 writers, 1 ms holds: sections/s (and the per-section costs)
 *   semaphore    12 processes, 3 leases, 2 ms holds: sections/s, most leases held at once
 *   ensemble     mutex8 on a 3-server ensemble (TestingCluster)
 *   ensemble-rw, ensemble-semaphore   rw and semaphore on that ensemble
 * Every server is fresh, fsync on. `--standalone` runs the standalone ones, `--ensemble` the
 * ensemble ones.
 *
 * Usage: npm run bench:compare -- [--base <rev>] [--reps N] [--quick] [--scenario a,b]
 *        [--standalone | --ensemble] [--dist] [--json] [--uncontended-warmup N] [--uncontended-n N]
 *   --dist   measure the compiled builds (tsc -b in both checkouts) instead of the sources via tsx
 *   --quick  one repetition of small sizes: checks that everything runs, measures little
 *   --uncontended-warmup N, --uncontended-n N   the uncontended scenario's warm-up and measured
 *            cycles (2,000 and 500): e.g. 10,000 and 2,000 to compare both clients once their JITs
 *            are done compiling the cycle (docs/benchmarks.md, "Uncontended")
 * Prints markdown (and with --json one JSON line of every repetition's figures).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ZkSession } from '@zk-recipes/core';
import { TestingCluster, TestingServer } from '@zk-recipes/testing';
import { createBaseTree, resolveBase, type BaseTree } from './compare/baseTree.js';
import { CONTENDERS, compareMarkdown, type CompareReport, type ContenderName, type Rep, type ScenarioName } from './compare/report.js';
import { drainQueue, mutexLoop, readWriteLoop, semaphoreLoop, uncontended, type Contender } from './compare/scenarios.js';
import { numberFlag } from './lib/flags.js';
import { machineInfo, zookeeperVersion } from './lib/machine.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const WORKER = 'bench/compare/worker.ts';
const STANDALONE: readonly ScenarioName[] = ['mutex8', 'uncontended', 'queue64', 'rw', 'semaphore'];
const ENSEMBLE: readonly ScenarioName[] = ['ensemble', 'ensemble-rw', 'ensemble-semaphore'];
const ALL: readonly ScenarioName[] = [...STANDALONE, ...ENSEMBLE];

interface Sizes {
  reps: number;
  mutexIterations: number;
  uncontendedN: number;
  uncontendedWarmup: number;
  queueProcesses: number;
  rwIterations: number;
  semaphoreIterations: number;
  /** Iterations per process of the discarded warm-up round on each fresh server. */
  warmupIterations: number;
}

const FULL: Sizes = { reps: 5, mutexIterations: 100, uncontendedN: 500, uncontendedWarmup: 2000, queueProcesses: 64, rwIterations: 100, semaphoreIterations: 50, warmupIterations: 20 };
const QUICK: Sizes = { reps: 1, mutexIterations: 15, uncontendedN: 100, uncontendedWarmup: 300, queueProcesses: 16, rwIterations: 15, semaphoreIterations: 10, warmupIterations: 5 };

function log(message: string): void {
  process.stderr.write(`[bench:compare ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

function flagValue(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

function selectedScenarios(argv: readonly string[]): ScenarioName[] {
  const named = flagValue(argv, '--scenario');
  let list: ScenarioName[] = named === undefined ? [...ALL] : (named.split(',') as ScenarioName[]);
  const unknown = list.filter((s) => !ALL.includes(s));
  if (unknown.length > 0) throw new Error(`unknown scenario(s) ${unknown.join(', ')}; known: ${ALL.join(', ')}`);
  if (argv.includes('--standalone')) list = list.filter((s) => STANDALONE.includes(s));
  if (argv.includes('--ensemble')) list = list.filter((s) => ENSEMBLE.includes(s));
  return list;
}

function titleOf(s: ScenarioName, z: Sizes): string {
  switch (s) {
    case 'mutex8':
      return `8 processes, one mutex, hold 0 (${z.mutexIterations} sections each), standalone server`;
    case 'ensemble':
      return `8 processes, one mutex, hold 0 (${z.mutexIterations} sections each), 3-server ensemble`;
    case 'uncontended':
      return `Uncontended acquire + release: one process, warm session (${z.uncontendedWarmup} warm-up cycles, ${z.uncontendedN} measured)`;
    case 'queue64':
      return `${z.queueProcesses} processes queued behind a held lock, 20 ms holds: drain (ideal ${z.queueProcesses * 20} ms)`;
    case 'rw':
      return `6 readers + 2 writers, 1 ms holds (${z.rwIterations} sections each), standalone server`;
    case 'ensemble-rw':
      return `6 readers + 2 writers, 1 ms holds (${z.rwIterations} sections each), 3-server ensemble`;
    case 'semaphore':
      return `12 processes, semaphore of 3 leases, 2 ms holds (${z.semaphoreIterations} sections each), standalone server`;
    case 'ensemble-semaphore':
      return `12 processes, semaphore of 3 leases, 2 ms holds (${z.semaphoreIterations} sections each), 3-server ensemble`;
  }
}

/** Runs one scenario once for one contender. */
function runScenario(s: ScenarioName, c: Contender, session: ZkSession, connect: string, path: string, z: Sizes): Promise<Rep> {
  switch (s) {
    case 'mutex8':
    case 'ensemble':
      return mutexLoop(c, session, connect, path, { processes: 8, iterations: z.mutexIterations, holdMs: 0 });
    case 'uncontended':
      return uncontended(c, session, connect, path, { n: z.uncontendedN, warmup: z.uncontendedWarmup });
    case 'queue64':
      return drainQueue(c, session, connect, path, { processes: z.queueProcesses, holdMs: 20 });
    case 'rw':
    case 'ensemble-rw':
      return readWriteLoop(c, session, connect, path, { readers: 6, writers: 2, iterations: z.rwIterations, holdMs: 1 });
    case 'semaphore':
    case 'ensemble-semaphore':
      return semaphoreLoop(c, session, connect, path, { processes: 12, leases: 3, iterations: z.semaphoreIterations, holdMs: 2 });
  }
}

/** Every scenario of `scenarios` `reps` times against one server, contenders interleaved. */
async function runOn(connect: string, scenarios: readonly ScenarioName[], contenders: Record<ContenderName, Contender>, z: Sizes, report: CompareReport): Promise<void> {
  const session = await ZkSession.connect({ connectString: connect, sessionTimeoutMs: 30_000 });
  const root = `/zk-recipes-bench/compare-${Date.now().toString(36)}`;
  try {
    // Discarded: a fresh server JVM is still JIT-compiling for a while, and the first runs of a
    // build pay for tsx's transform cache.
    for (const name of CONTENDERS) {
      log(`warm-up: ${name}`);
      await mutexLoop(contenders[name], session, connect, `${root}/warmup-${name}`, { processes: 4, iterations: z.warmupIterations, holdMs: 0 });
    }
    for (let rep = 0; rep < z.reps; rep++) {
      for (const s of scenarios) {
        for (const name of CONTENDERS) {
          log(`${s} rep ${rep + 1}/${z.reps}: ${name}`);
          const result = await runScenario(s, contenders[name], session, connect, `${root}/${s}-${rep}-${name}`, z);
          log(`${s} ${name}: ${JSON.stringify(result)}`);
          ((report.results[s] ??= { base: [], head: [], curator: [] })[name]).push(result);
        }
      }
    }
  } finally {
    await session.close();
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const began = Date.now();
  const z: Sizes = { ...(argv.includes('--quick') ? QUICK : FULL) };
  z.reps = numberFlag(argv, '--reps', z.reps);
  z.uncontendedWarmup = numberFlag(argv, '--uncontended-warmup', z.uncontendedWarmup);
  z.uncontendedN = numberFlag(argv, '--uncontended-n', z.uncontendedN);
  const scenarios = selectedScenarios(argv);
  const dist = argv.includes('--dist');
  process.env.ZKR_LIBRARY = dist ? 'dist' : 'source';
  const git = (...args: string[]): string => execFileSync('git', ['-C', REPO, ...args], { encoding: 'utf8' }).trim();

  const baseCommit = resolveBase(REPO, flagValue(argv, '--base'));
  if (dist) {
    log('head: tsc -b');
    execFileSync(process.execPath, [join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '-b'], { cwd: REPO, stdio: 'inherit' });
  }
  const base: BaseTree = createBaseTree(REPO, baseCommit, { workerFiles: [WORKER], compile: dist, log });
  const onSignal = (): void => {
    base.dispose();
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const contenders: Record<ContenderName, Contender> = {
    base: { kind: 'node', name: 'base', worker: join(base.dir, WORKER) },
    head: { kind: 'node', name: 'head', worker: join(REPO, WORKER) },
    curator: { kind: 'curator', name: 'Curator' },
  };
  const report: CompareReport = {
    command: `npm run bench:compare${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`,
    machine: machineInfo(),
    zookeeper: {},
    base: { commit: base.commit, label: base.label, dependencies: base.dependencies },
    head: { commit: git('rev-parse', 'HEAD'), label: git('log', '-1', '--format=%h %s'), dirty: git('status', '--porcelain') !== '' },
    library: dist ? 'dist' : 'source',
    reps: z.reps,
    scenarios: Object.fromEntries(scenarios.map((s) => [s, { title: titleOf(s, z) }])),
    results: {},
    wallSeconds: 0,
  };
  try {
    const standalone = scenarios.filter((s) => STANDALONE.includes(s));
    const ensemble = scenarios.filter((s) => ENSEMBLE.includes(s));
    if (standalone.length > 0) {
      const server = await TestingServer.start({ forceSync: true });
      try {
        report.zookeeper.standalone = await zookeeperVersion(server.connectString);
        await runOn(server.connectString, standalone, contenders, z, report);
      } finally {
        await server.stop();
      }
    }
    if (ensemble.length > 0) {
      const cluster = await TestingCluster.start({ forceSync: true });
      try {
        report.zookeeper.ensemble = await zookeeperVersion(cluster.connectString);
        await runOn(cluster.connectString, ensemble, contenders, z, report);
      } finally {
        await cluster.stop();
      }
    }
  } finally {
    base.dispose();
  }
  report.machine = machineInfo();
  report.wallSeconds = (Date.now() - began) / 1000;
  process.stdout.write(`${compareMarkdown(report)}\n`);
  if (argv.includes('--json')) process.stdout.write(`${JSON.stringify(report)}\n`);
}

await main();
