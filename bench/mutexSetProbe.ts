/**
 * What a MutexSet adds to an acquisition, beside bare InterProcessMutex objects kept in a map: a
 * local probe, not a benchmark (the per-entity benchmark is `bench/run.ts`'s). One process, one
 * session, one server; `--tasks` concurrent tasks each loop acquire → hold → release on a random
 * key of `--keys`, for `--seconds` per run; the variants take turns, run after run, so that a
 * machine whose load drifts slows them alike. Prints sections per second and each variant's ratio
 * to the map of mutexes, per run and as the median with its range.
 *
 * Variants: `map` (an InterProcessMutex per key, made on first use and kept forever: what users
 * write today), `map-again` (the same, a control: how far apart two runs of one code come out),
 * `set` (MutexSet, idle locks kept up to the default bound), `set-drop` (MutexSet
 * with `maxIdleLocks: 0`: a new lock object whenever a key was idle), `set-delete` (MutexSet with
 * `deleteIdleDirectories`).
 *
 * Usage: node --conditions=@zk-recipes/source --import tsx bench/mutexSetProbe.ts
 *          [--keys 1000] [--tasks 32] [--hold-ms 1] [--seconds 3] [--runs 5] [--variants map,set,...]
 *        (with ZK_CONNECT it uses that server; otherwise it starts one; ZKR_LIBRARY=dist and no
 *        --conditions flag to measure the compiled packages)
 */
import { ZkSession } from '@zk-recipes/core';
import { InterProcessMutex, MutexSet } from '@zk-recipes/mutex';
import { TestingServer } from '@zk-recipes/testing';
import { numberFlag } from './lib/flags.js';
import { fmtRatio, median } from './lib/stats.js';

const keys = numberFlag(process.argv, '--keys', 1000);
const tasks = numberFlag(process.argv, '--tasks', 32);
const holdMs = numberFlag(process.argv, '--hold-ms', 1);
const seconds = numberFlag(process.argv, '--seconds', 3);
const runs = numberFlag(process.argv, '--runs', 5);

type Section = (key: string, hold: () => Promise<void>) => Promise<void>;
interface Variant {
  name: string;
  make(session: ZkSession, base: string): Section;
}

const ALL_VARIANTS: Variant[] = [
  {
    name: 'map',
    make(session, base) {
      const mutexes = new Map<string, InterProcessMutex>();
      return async (key, hold) => {
        let mutex = mutexes.get(key);
        if (mutex === undefined) {
          mutex = new InterProcessMutex(session, `${base}/${key}`);
          mutexes.set(key, mutex);
        }
        const handle = await mutex.acquire();
        await hold();
        await handle.release();
      };
    },
  },
  // The same code as `map` again: its ratio is what the machine's noise alone makes of no change.
  { name: 'map-again', make: (session, base) => ALL_VARIANTS[0]!.make(session, base) },
  { name: 'set', make: (session, base) => viaSet(new MutexSet(session, base)) },
  { name: 'set-drop', make: (session, base) => viaSet(new MutexSet(session, base, { maxIdleLocks: 0 })) },
  { name: 'set-delete', make: (session, base) => viaSet(new MutexSet(session, base, { deleteIdleDirectories: true })) },
];

const chosen = process.argv.includes('--variants') ? process.argv[process.argv.indexOf('--variants') + 1]!.split(',') : undefined;
// `map` is what the others are compared with: always measured.
const VARIANTS = ALL_VARIANTS.filter((v) => v.name === 'map' || chosen === undefined || chosen.includes(v.name));

function viaSet(locks: MutexSet): Section {
  return async (key, hold) => {
    const handle = await locks.acquire(key);
    await hold();
    await handle.release();
  };
}

const hold = holdMs > 0 ? () => new Promise<void>((resolve) => setTimeout(resolve, holdMs)) : () => Promise.resolve();
const keyNames = Array.from({ length: keys }, (_, i) => `key-${i}`);

/** Sections per second, and CPU microseconds per section, of one variant over one run, on a base path of its own. */
async function measure(session: ZkSession, variant: Variant, base: string): Promise<{ rate: number; cpuUs: number }> {
  const section = variant.make(session, base);
  // Every key used once: directories made, objects warm, as in a service that has run a while.
  for (let i = 0; i < keys; i += tasks) await Promise.all(keyNames.slice(i, i + tasks).map((key) => section(key, () => Promise.resolve())));
  let done = 0;
  const endAt = performance.now() + seconds * 1000;
  const startedAt = performance.now();
  const cpuBefore = process.cpuUsage();
  await Promise.all(
    Array.from({ length: tasks }, async () => {
      while (performance.now() < endAt) {
        await section(keyNames[Math.floor(Math.random() * keys)]!, hold);
        done++;
      }
    }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  return { rate: done / ((performance.now() - startedAt) / 1000), cpuUs: (cpu.user + cpu.system) / done };
}

const server = process.env['ZK_CONNECT'] === undefined ? await TestingServer.start({ forceSync: false }) : undefined;
const connectString = process.env['ZK_CONNECT'] ?? server!.connectString;
const session = await ZkSession.connect({ connectString, sessionTimeoutMs: 30_000 });
const root = `/zk-recipes-set-probe/${Date.now().toString(36)}`;
const rates = new Map<string, number[]>(VARIANTS.map((v) => [v.name, []]));
/** Each variant's sections per second, summed over the runs (for the pooled ratio). */
const rateSums = new Map<string, number>(VARIANTS.map((v) => [v.name, 0]));
const cpus = new Map<string, number[]>(VARIANTS.map((v) => [v.name, []]));
try {
  console.log(`${keys} keys, ${tasks} tasks, hold ${holdMs} ms, ${seconds} s a run, ${runs} runs; one session, one server`);
  for (let run = 0; run < runs; run++) {
    const line: string[] = [];
    // A different order each run: no variant always follows the same one.
    const order = VARIANTS.map((_, i) => VARIANTS[(i + run) % VARIANTS.length]!);
    const perRun = new Map<string, { rate: number; cpuUs: number }>();
    for (const variant of order) perRun.set(variant.name, await measure(session, variant, `${root}/${variant.name}-${run}`));
    const base = perRun.get('map')!;
    for (const variant of VARIANTS) {
      const { rate, cpuUs } = perRun.get(variant.name)!;
      rates.get(variant.name)!.push(rate / base.rate);
      rateSums.set(variant.name, rateSums.get(variant.name)! + rate);
      cpus.get(variant.name)!.push(cpuUs / base.cpuUs);
      const ratios = variant.name === 'map' ? '' : ` (${fmtRatio(rate / base.rate)}, cpu ${fmtRatio(cpuUs / base.cpuUs)})`;
      line.push(`${variant.name} ${rate.toFixed(0)}/s ${cpuUs.toFixed(0)} us${ratios}`);
    }
    console.log(`run ${run + 1}: ${line.join(', ')}`);
  }
  const summary = (ratios: number[]) => `median ${fmtRatio(median(ratios))}, range ${fmtRatio(Math.min(...ratios))} to ${fmtRatio(Math.max(...ratios))}`;
  for (const variant of VARIANTS.slice(1)) {
    const pooled = rateSums.get(variant.name)! / rateSums.get('map')!;
    console.log(`${variant.name} / map: sections/s ${summary(rates.get(variant.name)!)}, pooled ${fmtRatio(pooled)}; CPU per section ${summary(cpus.get(variant.name)!)}`);
  }
} finally {
  await session.close();
  await server?.stop();
}
