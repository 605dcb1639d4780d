/**
 * TLS benchmark: what TLS costs an InterProcessMutex, against plaintext on the SAME server (one
 * TestingServer with `tls`: Netty serves both ports), repetitions alternating plaintext and TLS
 * so that the load of a shared machine hits both alike. Targets are ratios within the run.
 *
 * Scenarios:
 * 1. uncontended acquire/release pairs on a warm session, plaintext and TLS pair by pair;
 * 2. hand-off: N processes (default 6) loop acquire → hold 1 ms → release on one mutex:
 *    critical sections/s and the gap from one holder's end to the next holder's start;
 * 3. connect(): a new session until `connected` (TCP, then the TLS handshake, then the session).
 *
 * Usage: node --conditions=@zk-recipes/source --import tsx bench/tls.ts [--quick] [--json]
 *   [--reps N] [--pairs N] [--processes N] [--iterations N] [--connects N]
 * Always starts its own TLS TestingServer (fsync on): ZK_CONNECT has no certificates to offer.
 */
import { AsyncResource } from 'node:async_hooks';
import { fileURLToPath } from 'node:url';
import { ZkSession, type TlsOptions } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { findOverlaps, handoffGaps, TestingServer, type Interval } from '@zk-recipes/testing';
import { numberFlag } from './lib/flags.js';
import { startNodeFleet } from './lib/fleets.js';
import { machineInfo, zookeeperVersion, type MachineInfo } from './lib/machine.js';
import { fmtMs, fmtRatio, median, nsToMs, percentile } from './lib/stats.js';
import { markdownTable } from './lib/table.js';

const WORKER = fileURLToPath(new URL('./workers/tlsMutexWorker.ts', import.meta.url));

export interface TlsBenchOptions {
  /** Alternating repetitions of every scenario. */
  reps: number;
  /** Acquire/release pairs per transport per repetition (scenario 1). */
  pairs: number;
  /** Warm-up pairs per transport before scenario 1. */
  warmup: number;
  /** Contending processes (scenario 2). */
  processes: number;
  /** Sections per process (scenario 2). */
  iterations: number;
  holdMs: number;
  /** Sessions opened per transport per repetition (scenario 3). */
  connects: number;
}

export const DEFAULT_OPTIONS: TlsBenchOptions = { reps: 5, pairs: 400, warmup: 2000, processes: 6, iterations: 40, holdMs: 1, connects: 20 };

type Transport = 'plain' | 'tls';
const TRANSPORTS: readonly Transport[] = ['plain', 'tls'];

interface HandoffRep {
  sectionsPerSecond: number;
  gapP50Ms: number;
  gapP99Ms: number;
}

export interface TlsBenchReport {
  machine: MachineInfo;
  zookeeper: string;
  options: TlsBenchOptions;
  acquireNs: Record<Transport, number[]>;
  releaseNs: Record<Transport, number[]>;
  handoff: Record<Transport, HandoffRep[]>;
  connectNs: Record<Transport, number[]>;
  wallSeconds: number;
}

function log(message: string): void {
  process.stderr.write(`[bench:tls ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/** Plaintext first in even repetitions, TLS first in odd ones. */
const orderOf = (rep: number): readonly Transport[] => (rep % 2 === 0 ? TRANSPORTS : [...TRANSPORTS].reverse());

export async function runTlsBench(server: TestingServer, o: TlsBenchOptions): Promise<TlsBenchReport> {
  const began = Date.now();
  const t = server.tls!;
  const tls: TlsOptions = { ca: t.ca, ...t.clients.alice };
  const target: Record<Transport, { connectString: string; tls?: TlsOptions }> = {
    plain: { connectString: server.connectString },
    tls: { connectString: t.connectString, tls },
  };
  const base = `/zk-recipes-bench/tls-${Date.now().toString(36)}`;
  const report: TlsBenchReport = {
    machine: machineInfo(),
    zookeeper: await zookeeperVersion(server.connectString),
    options: o,
    acquireNs: { plain: [], tls: [] },
    releaseNs: { plain: [], tls: [] },
    handoff: { plain: [], tls: [] },
    connectNs: { plain: [], tls: [] },
    wallSeconds: 0,
  };

  // 1. Uncontended pairs, each in a fresh async context (see bench/mutex.ts).
  const sessions = { plain: await ZkSession.connect({ ...target.plain, sessionTimeoutMs: 30_000 }), tls: await ZkSession.connect({ ...target.tls, sessionTimeoutMs: 30_000 }) };
  try {
    const mutexes = { plain: new InterProcessMutex(sessions.plain, `${base}/uncontended-plain`), tls: new InterProcessMutex(sessions.tls, `${base}/uncontended-tls`) };
    const root = new AsyncResource('bench-tls');
    const pair = (via: Transport): Promise<{ acquireNs: number; releaseNs: number }> =>
      root.runInAsyncScope(async () => {
        const t0 = process.hrtime.bigint();
        const handle = await mutexes[via].acquire();
        const t1 = process.hrtime.bigint();
        await handle.release();
        return { acquireNs: Number(t1 - t0), releaseNs: Number(process.hrtime.bigint() - t1) };
      });
    for (let i = 0; i < o.warmup; i++) for (const via of TRANSPORTS) await pair(via);
    for (let rep = 0; rep < o.reps; rep++) {
      log(`uncontended rep ${rep + 1}/${o.reps}`);
      for (let i = 0; i < o.pairs; i++) {
        for (const via of orderOf(i)) {
          const { acquireNs, releaseNs } = await pair(via);
          report.acquireNs[via].push(acquireNs);
          report.releaseNs[via].push(releaseNs);
        }
      }
    }
  } finally {
    await Promise.all([sessions.plain.close(), sessions.tls.close()]);
  }

  // 2. Hand-off between processes; 3. connect().
  for (let rep = 0; rep < o.reps; rep++) {
    for (const via of orderOf(rep)) {
      log(`hand-off rep ${rep + 1}/${o.reps}: ${o.processes} processes, ${via}`);
      if (via === 'tls') process.env['ZKR_BENCH_TLS'] = JSON.stringify(tls);
      else delete process.env['ZKR_BENCH_TLS'];
      const fleet = await startNodeFleet(WORKER, o.processes, [target[via].connectString, `${base}/handoff-${via}-${rep}`, String(o.iterations), String(o.holdMs)]);
      let lines: unknown[];
      try {
        fleet.go();
        lines = await fleet.finished(180_000);
      } finally {
        await fleet.stop();
        delete process.env['ZKR_BENCH_TLS'];
      }
      report.handoff[via].push(handoffRep(via, lines));
    }
    for (let i = 0; i < o.connects; i++) {
      for (const via of orderOf(i)) {
        const t0 = process.hrtime.bigint();
        const session = await ZkSession.connect({ ...target[via], sessionTimeoutMs: 30_000 });
        report.connectNs[via].push(Number(process.hrtime.bigint() - t0));
        await session.close();
      }
    }
  }
  report.wallSeconds = (Date.now() - began) / 1000;
  return report;
}

function handoffRep(via: Transport, lines: readonly unknown[]): HandoffRep {
  const sections: Interval[] = (lines as { type: string; worker: string; start: string; end: string }[])
    .filter((l) => l.type === 'section')
    .map((l) => ({ worker: l.worker, start: BigInt(l.start), end: BigInt(l.end) }));
  if (findOverlaps(sections).length > 0) throw new Error(`${via}: critical sections overlap: the lock is broken`);
  const first = sections.reduce((m, s) => (s.start < m ? s.start : m), sections[0]!.start);
  const last = sections.reduce((m, s) => (s.end > m ? s.end : m), 0n);
  const gaps = handoffGaps(sections).map((g) => nsToMs(g.gapNs));
  return { sectionsPerSecond: (sections.length * 1000) / nsToMs(last - first), gapP50Ms: percentile(gaps, 0.5), gapP99Ms: percentile(gaps, 0.99) };
}

/** The report as markdown (the body of docs/benchmarks.md's TLS section). */
export function tlsBenchMarkdown(r: TlsBenchReport, command: string): string {
  const ms = (ns: number): string => fmtMs(nsToMs(ns), 3);
  const p = (xs: number[], q: number): number => percentile(xs, q);
  const med = (reps: HandoffRep[], f: (x: HandoffRep) => number): number => median(reps.map(f));
  const ratio = (a: number, b: number): string => fmtRatio(a / b);
  const o = r.options;
  return [
    `Machine: ${r.machine.nproc} CPUs (nproc), ${r.machine.cpuModel}, ${r.machine.memoryGiB.toFixed(1)} GiB RAM; Node ${r.machine.node}; load average at the end ${r.machine.loadAverage}.`,
    `ZooKeeper ${r.zookeeper}, one fresh standalone \`TestingServer\` with \`tls: true\` (Netty serves the plaintext and the TLS port; forceSync=yes), P-256 certificates, client certificate required. Plaintext and TLS alternate.`,
    `Command: \`${command}\`; wall time ${r.wallSeconds.toFixed(0)} s.`,
    '',
    markdownTable(
      ['', 'plaintext', 'TLS', 'TLS / plaintext'],
      [
        [`uncontended acquire p50 (${o.reps} x ${o.pairs} pairs, after ${o.warmup} warm-up pairs)`, ms(p(r.acquireNs.plain, 0.5)), ms(p(r.acquireNs.tls, 0.5)), ratio(p(r.acquireNs.tls, 0.5), p(r.acquireNs.plain, 0.5))],
        ['uncontended acquire p99', ms(p(r.acquireNs.plain, 0.99)), ms(p(r.acquireNs.tls, 0.99)), ratio(p(r.acquireNs.tls, 0.99), p(r.acquireNs.plain, 0.99))],
        ['uncontended release p50', ms(p(r.releaseNs.plain, 0.5)), ms(p(r.releaseNs.tls, 0.5)), ratio(p(r.releaseNs.tls, 0.5), p(r.releaseNs.plain, 0.5))],
        [
          'uncontended pair (acquire + release) p50',
          ms(p(r.acquireNs.plain, 0.5) + p(r.releaseNs.plain, 0.5)),
          ms(p(r.acquireNs.tls, 0.5) + p(r.releaseNs.tls, 0.5)),
          ratio(p(r.acquireNs.tls, 0.5) + p(r.releaseNs.tls, 0.5), p(r.acquireNs.plain, 0.5) + p(r.releaseNs.plain, 0.5)),
        ],
        [
          `hand-off: sections/s, ${o.processes} processes (median of ${o.reps})`,
          med(r.handoff.plain, (x) => x.sectionsPerSecond).toFixed(0),
          med(r.handoff.tls, (x) => x.sectionsPerSecond).toFixed(0),
          ratio(med(r.handoff.tls, (x) => x.sectionsPerSecond), med(r.handoff.plain, (x) => x.sectionsPerSecond)),
        ],
        [
          'hand-off gap p50 (median)',
          fmtMs(med(r.handoff.plain, (x) => x.gapP50Ms), 3),
          fmtMs(med(r.handoff.tls, (x) => x.gapP50Ms), 3),
          ratio(med(r.handoff.tls, (x) => x.gapP50Ms), med(r.handoff.plain, (x) => x.gapP50Ms)),
        ],
        [
          'hand-off gap p99 (median)',
          fmtMs(med(r.handoff.plain, (x) => x.gapP99Ms), 2),
          fmtMs(med(r.handoff.tls, (x) => x.gapP99Ms), 2),
          ratio(med(r.handoff.tls, (x) => x.gapP99Ms), med(r.handoff.plain, (x) => x.gapP99Ms)),
        ],
        [`connect() p50 (${o.reps} x ${o.connects} sessions)`, ms(p(r.connectNs.plain, 0.5)), ms(p(r.connectNs.tls, 0.5)), ratio(p(r.connectNs.tls, 0.5), p(r.connectNs.plain, 0.5))],
      ],
    ),
    '',
    `Hand-off per repetition, sections/s: plaintext ${r.handoff.plain.map((x) => x.sectionsPerSecond.toFixed(0)).join(', ')}; TLS ${r.handoff.tls.map((x) => x.sectionsPerSecond.toFixed(0)).join(', ')}.`,
  ].join('\n');
}

function parseArgs(argv: readonly string[]): TlsBenchOptions {
  const o = { ...DEFAULT_OPTIONS };
  if (argv.includes('--quick')) Object.assign(o, { reps: 2, pairs: 100, warmup: 300, iterations: 15, connects: 5 });
  o.reps = numberFlag(argv, '--reps', o.reps);
  o.pairs = numberFlag(argv, '--pairs', o.pairs);
  o.processes = numberFlag(argv, '--processes', o.processes);
  o.iterations = numberFlag(argv, '--iterations', o.iterations);
  o.connects = numberFlag(argv, '--connects', o.connects);
  return o;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const options = parseArgs(argv);
  const server = await TestingServer.start({ forceSync: true, tls: true });
  try {
    const report = await runTlsBench(server, options);
    process.stdout.write(`${tlsBenchMarkdown(report, `npm run bench:tls${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`)}\n`);
    if (argv.includes('--json')) process.stdout.write(`${JSON.stringify(report)}\n`);
  } finally {
    await server.stop();
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main();
}
