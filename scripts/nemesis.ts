/**
 * `npm run test:nemesis -- --seed S --minutes M`: the randomised nemesis for long runs.
 *
 * Starts a 3-server ensemble (or uses ZK_CONNECT: then without leader failures), and runs rounds of
 * `--round-minutes` (default 2) of faults against N InterProcessMutex processes, each round a seed
 * of its own (S, S+1, ...) so that a failing round replays on its own:
 * `npm run test:nemesis -- --seed <that seed> --minutes <round minutes>`. Prints each round's
 * summary, then the whole run's (seeds, minutes, sections, faults of each kind, overlaps, idle gaps,
 * deadline misses); exits 1 on any overlap, worker problem, idle gap over its bound
 * (`idleBoundsFor`) or acquisition settled later than its deadline or abort allows (`checkDeadlines`).
 *
 * Options: --seed S (default random) --minutes M (default 5) --round-minutes R (default 2)
 * --workers N (default 4) --session-ms T (default 3000) --kinds k1,k2 (default all) --quiet
 * --long-holds P (share of grants held 0.5-2 session timeouts, default 0.03)
 * --short-deadlines P (share of acquisitions with a timeoutMs of 300-2000 ms, default 0.3)
 * --recipe mutex | semaphore:<k> (at most k holders) | rwlock (readers and writers, 3:1, half the
 * writers downgrading) | leader (a LeaderLatch election: at most one leader) | all (default mutex;
 * `all` takes them in turn, one per round).
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  countKinds,
  describeNemesis,
  FAULT_KINDS,
  NEMESIS_CLUSTER,
  randomSeed,
  runNemesis,
  TestingCluster,
  uniqueRoot,
  type FaultKind,
  type NemesisResult,
} from '@zk-recipes/testing';

function usage(message: string): never {
  process.stderr.write(`nemesis: ${message}\nusage: npm run test:nemesis -- [--seed S] [--minutes M] [--round-minutes R] [--workers N] [--session-ms T] [--kinds k1,k2] [--recipe mutex|semaphore:<k>|rwlock|leader|all] [--long-holds P] [--short-deadlines P] [--quiet]\n`);
  process.exit(2);
}

/** A round fails on an overlap (safety), a worker problem, an idle gap over its bound (liveness), or a deadline missed. */
function failed(r: NemesisResult): boolean {
  return r.overlaps.length > 0 || r.problems.length > 0 || r.idleViolations.length > 0 || r.deadlineMisses.length > 0;
}

const args = new Map<string, string>();
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i]!;
  if (!a.startsWith('--')) usage(`unexpected argument ${a}`);
  if (a === '--quiet') args.set('quiet', 'true');
  else args.set(a.slice(2), argv[++i] ?? usage(`${a} needs a value`));
}
const num = (name: string, fallback: number): number => {
  const v = args.has(name) ? Number(args.get(name)) : fallback;
  if (!Number.isFinite(v) || v <= 0) usage(`--${name} must be a positive number`);
  return v;
};
const seed = args.has('seed') ? Math.trunc(num('seed', 1)) : randomSeed();
const minutes = num('minutes', 5);
const roundMinutes = Math.min(minutes, num('round-minutes', 2));
const workers = Math.trunc(num('workers', 4));
const sessionTimeoutMs = Math.trunc(num('session-ms', 3000));
const kinds = args.has('kinds') ? (args.get('kinds')!.split(',') as FaultKind[]) : undefined;
for (const k of kinds ?? []) if (!(FAULT_KINDS as readonly string[]).includes(k)) usage(`unknown fault kind ${k}; known: ${FAULT_KINDS.join(', ')}`);
const quiet = args.has('quiet');
if (args.has('long-holds')) {
  const share = Number(args.get('long-holds'));
  if (!(share >= 0 && share <= 1)) usage('--long-holds must be a share between 0 and 1');
  process.env['ZKR_NEMESIS_LONG_HOLDS'] = String(share); // the workers inherit it
}
if (args.has('short-deadlines')) {
  const share = Number(args.get('short-deadlines'));
  if (!(share >= 0 && share <= 1)) usage('--short-deadlines must be a share between 0 and 1');
  process.env['ZKR_NEMESIS_SHORT_DEADLINES'] = String(share); // the workers inherit it
}
const workerScript = fileURLToPath(new URL('./nemesis-worker.ts', import.meta.url));
const recipeArg = args.get('recipe') ?? 'mutex';
const recipes = recipeArg === 'all' ? ['mutex', 'semaphore:2', 'rwlock', 'leader'] : [recipeArg];
for (const r of recipes) if (!/^(mutex|rwlock|leader|semaphore:[1-9]\d*)$/.test(r)) usage(`unknown recipe ${r}`);
const maxConcurrentOf = (recipe: string): number => (recipe.startsWith('semaphore:') ? Number(recipe.slice('semaphore:'.length)) : 1);

const external = process.env['ZK_CONNECT'];
process.stdout.write(`nemesis: ${recipes.join(', ')}; seed ${seed}, ${minutes} min in rounds of ${roundMinutes} min, ${workers} processes, session ${sessionTimeoutMs} ms, ${external ? `ZK_CONNECT=${external} (no leader failures)` : 'a 3-server ensemble'}\n`);
const cluster = external ? undefined : await TestingCluster.start(NEMESIS_CLUSTER);
const connectString = external ?? cluster!.connectString;

const results: NemesisResult[] = [];
let interrupted = false;
process.once('SIGINT', () => {
  interrupted = true;
  process.stdout.write('\nnemesis: interrupted; finishing the current round\n');
});
try {
  const rounds = Math.max(1, Math.round(minutes / roundMinutes));
  for (let round = 0; round < rounds && !interrupted; round++) {
    const roundSeed = seed + round;
    const recipe = recipes[round % recipes.length]!;
    const result = await runNemesis({
      seed: roundSeed,
      faultMs: Math.round(roundMinutes * 60_000),
      workers,
      sessionTimeoutMs,
      workerScript,
      workerArgs: [recipe],
      maxConcurrent: maxConcurrentOf(recipe),
      lockPath: `${uniqueRoot('nemesis')}/lock`,
      connectString,
      ...(cluster ? { cluster } : {}),
      ...(kinds ? { kinds } : {}),
      log: quiet ? undefined : (line) => process.stdout.write(`  ${line}\n`),
    });
    results.push(result);
    process.stdout.write(`\nround ${round + 1}/${rounds} (${recipe}): ${describeNemesis(result)}\n`);
    if (failed(result)) {
      // Every hold and fault of the round, for a closer look than the summary gives.
      const file = join(tmpdir(), `nemesis-${recipe.replace(':', '')}-${roundSeed}.json`);
      writeFileSync(file, JSON.stringify(result, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value), 1));
      process.stdout.write(`FAILED: ${recipe} seed ${roundSeed}; records in ${file}; replay with: npm run test:nemesis -- --recipe ${recipe} --seed ${roundSeed} --minutes ${roundMinutes}\n`);
    }
  }
} finally {
  await cluster?.stop();
}

const failedSeeds = results.filter(failed).map((r) => r.seed);
const missSeeds = results.filter((r) => r.deadlineMisses.length > 0).map((r) => `${r.seed} (${recipes[results.indexOf(r) % recipes.length]})`);
const totals = countKinds(results.flatMap((r) => r.faults.filter((f) => !f.skipped).map((f) => f.step.kind)));
const sum = (f: (r: NemesisResult) => number): number => results.reduce((n, r) => n + f(r), 0);
process.stdout.write(
  [
    '',
    '== nemesis summary ==',
    `seeds: ${results.map((r) => r.seed).join(', ')} (first ${seed})`,
    `minutes of faults: ${(sum((r) => r.faultMs) / 60_000).toFixed(2)}`,
    `sections: ${sum((r) => r.sections)} (calm tails: ${sum((r) => r.calmSections)})`,
    `faults: ${Object.entries(totals)
      .map(([k, n]) => `${k}=${n}`)
      .join(' ')}`,
    `overlaps: ${sum((r) => r.overlaps.length)}`,
    `idle gaps (lock free while someone waited): longest ${Math.max(0, ...results.map((r) => (r.idleGaps[0] ? Number(r.idleGaps[0].end - r.idleGaps[0].start) / 1e6 : 0))).toFixed(1)} ms near faults, ${Math.max(0, ...results.map((r) => (r.quietIdleGaps[0] ? Number(r.quietIdleGaps[0].end - r.quietIdleGaps[0].start) / 1e6 : 0))).toFixed(1)} ms away from any; over their bounds: ${sum((r) => r.idleViolations.length)}`,
    `deadlines: ${sum((r) => r.deadlines.checked)} checked; missed (settled later than deadline or abort + ${results[0]?.deadlineAllowance.slackMs ?? 0} ms slack + ${results[0]?.deadlineAllowance.toleranceMs ?? 0} ms tolerance): ${sum((r) => r.deadlineMisses.length)}${missSeeds.length > 0 ? ` (seeds ${missSeeds.join(', ')})` : ''}; worst lateness ${Math.max(0, ...results.map((r) => r.deadlines.worstLatenessMs)).toFixed(1)} ms`,
    `problems: ${sum((r) => r.problems.length)}`,
    `machine slowness (the bounds' scaling): ${results.map((r) => `×${r.slowness.factor.toFixed(1)}`).join(', ')}`,
    failedSeeds.length > 0 ? `FAILED seeds: ${failedSeeds.join(', ')}` : 'no overlap, idle gap over its bound or deadline missed',
    '',
  ].join('\n'),
);
process.exit(failedSeeds.length > 0 ? 1 : 0);
