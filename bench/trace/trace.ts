/**
 * Where the time of a contended hand-off goes: runs N traced contender processes (traceWorker.ts)
 * on one lock, merges their logs (one monotonic clock for all processes), and prints the hand-off
 * breakdown, the requests per critical section, how busy the machine and the server JVM were, and
 * (semaphore) the admission chain and the time spent with 0..n leases in use.
 *
 * Usage: npm run bench:trace -- <mutex|rw|semaphore> (builds, then runs the compiled library)
 *   [--processes 8] [--iterations 80] [--hold-ms 1] [--writers 2] [--leases 3] [--warmup-runs 3]
 *   [--steps <file>] (also writes every merged step as JSON, for questions the report does not answer)
 * With ZK_CONNECT (and ZK_PID for the server's CPU) it uses that server; otherwise it starts one
 * and first does `--warmup-runs` discarded runs (a fresh server JVM JIT-compiles for a while).
 * Findings quoted in docs/benchmarks.md come from this tool.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runWorkers, TestingServer } from '@zk-recipes/testing';
import { machineCpu, processCpuMs } from '../lib/machine.js';
import { handOffs, mergeTraces, nudgeChain, quantile, requestsPerSection, timeAtConcurrency, type Step, type TraceEntry } from './traceLog.js';

const WORKER = fileURLToPath(new URL('./traceWorker.ts', import.meta.url));
// The workers run the compiled library (dist/), as users do and as the benchmarks measure.
process.env['ZKR_LIBRARY'] ??= 'dist';

interface TraceOptions {
  recipe: 'mutex' | 'rw' | 'semaphore';
  processes: number;
  iterations: number;
  holdMs: number;
  writers: number;
  leases: number;
}

async function traceRun(connectString: string, serverPid: number | undefined, o: TraceOptions): Promise<{ steps: Step[]; busy: number; serverCpuMs: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'zkr-trace-'));
  const lockPath = `/zk-recipes-trace/${o.recipe}-${Date.now().toString(36)}`;
  const roleOf = (i: number): string => (o.recipe === 'rw' ? (i < o.writers ? 'write' : 'read') : o.recipe);
  try {
    const cpuBefore = machineCpu();
    const serverBefore = serverPid === undefined ? Number.NaN : processCpuMs(serverPid);
    await runWorkers({
      script: WORKER,
      count: o.processes,
      barrier: true,
      timeoutMs: 300_000,
      args: (i) => [roleOf(i), connectString, lockPath, String(o.iterations), String(o.holdMs), String(o.leases), join(dir, `${i}.json`)],
    });
    const cpuAfter = machineCpu();
    const serverCpuMs = serverPid === undefined ? Number.NaN : processCpuMs(serverPid) - serverBefore;
    const traces = Array.from({ length: o.processes }, (_, i) => JSON.parse(readFileSync(join(dir, `${i}.json`), 'utf8')) as { pid: number; log: TraceEntry[] });
    const busy = 1 - (cpuAfter.idle - cpuBefore.idle) / (cpuAfter.total - cpuBefore.total);
    return { steps: mergeTraces(traces), busy, serverCpuMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function table(parts: Record<string, number[]>): string {
  const rows = ['| step | n | p50 (ms) | p90 (ms) |', '|---|---:|---:|---:|'];
  for (const [name, values] of Object.entries(parts)) rows.push(`| ${name} | ${values.length} | ${quantile(values, 0.5).toFixed(3)} | ${quantile(values, 0.9).toFixed(3)} |`);
  return rows.join('\n');
}

function report(steps: Step[], busy: number, serverCpuMs: number, o: TraceOptions): string {
  const starts = steps.filter((s) => s.what === 'start');
  const ends = steps.filter((s) => s.what === 'end');
  const spanMs = Number(ends.at(-1)!.ns - starts[0]!.ns) / 1e6;
  const lines = [
    `${o.recipe}: ${o.processes} processes x ${o.iterations} sections, ${o.holdMs} ms holds: ${starts.length} sections in ${spanMs.toFixed(0)} ms = ${((starts.length * 1000) / spanMs).toFixed(0)}/s`,
    `machine CPU busy ${(busy * 100).toFixed(0)}%; server JVM CPU ${Number.isNaN(serverCpuMs) ? '?' : `${serverCpuMs} ms (${(serverCpuMs / starts.length).toFixed(2)} ms per section)`}`,
    `per section: ${JSON.stringify(requestsPerSection(steps))}`,
    '',
  ];
  if (o.recipe !== 'semaphore') lines.push(table(handOffs(steps)));
  if (o.recipe === 'semaphore') {
    const chain = nudgeChain(steps);
    lines.push(`${chain.viaNudge} of ${chain.admissions} admissions came through a nudge:`, '', table(chain.parts));
  }
  const at = [...timeAtConcurrency(steps)].sort((a, b) => a[0] - b[0]);
  lines.push('', `ms with n sections open: ${at.map(([n, ms]) => `${n}: ${ms.toFixed(0)}`).join(', ')}`);
  return lines.join('\n');
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const recipe = argv[0];
  if (recipe !== 'mutex' && recipe !== 'rw' && recipe !== 'semaphore') throw new Error('usage: trace.ts <mutex|rw|semaphore> [options]');
  const flagText = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const flag = (name: string, fallback: number): number => Number(flagText(name) ?? fallback);
  const o: TraceOptions = {
    recipe,
    processes: flag('--processes', recipe === 'semaphore' ? 12 : 8),
    iterations: flag('--iterations', recipe === 'semaphore' ? 50 : 80),
    holdMs: flag('--hold-ms', recipe === 'semaphore' ? 2 : 1),
    writers: flag('--writers', 2),
    leases: flag('--leases', 3),
  };
  const explicit = process.env['ZK_CONNECT'];
  const server = explicit === undefined || explicit === '' ? await TestingServer.start() : undefined;
  const serverPid = server?.pid ?? (process.env['ZK_PID'] === undefined ? undefined : Number(process.env['ZK_PID']));
  try {
    const connectString = explicit || server!.connectString;
    for (let i = 0; i < (server === undefined ? 0 : flag('--warmup-runs', 3)); i++) await traceRun(connectString, serverPid, o);
    const { steps, busy, serverCpuMs } = await traceRun(connectString, serverPid, o);
    process.stdout.write(`${report(steps, busy, serverCpuMs, o)}\n`);
    const dump = flagText('--steps');
    if (dump !== undefined) writeFileSync(dump, JSON.stringify(steps, (_key, value: unknown) => (typeof value === 'bigint' ? Number(value) : value)));
  } finally {
    await server?.stop();
  }
}

await main();
