/**
 * `npm run bench`: every recipe's benchmark, one after the other, each in its own process (each
 * starts and stops its own ZooKeeper server unless ZK_CONNECT is set).
 * `npm run bench:mutex` = `bench/run.ts mutex`: only the named ones. Arguments after the names
 * (from the first one starting with `--`) go to every benchmark.
 *
 * The benchmarks measure the compiled library (`dist/`, what users run): this builds it first
 * (`tsc -b`) and sets `ZKR_LIBRARY=dist` for every process it starts. `ZKR_LIBRARY=source` measures
 * the TypeScript sources through tsx instead. It also sets `ZKR_REPORT=at-end`: every contender,
 * ours and Curator's, prints its critical sections when it is done, not during the run.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { nodeScriptArgs } from '../packages/testing/src/nodeScriptArgs.js';

const BENCHES = ['mutex', 'rwlock', 'rwmix', 'semaphore', 'leader', 'tls'] as const;

const argv = process.argv.slice(2);
const firstFlag = argv.findIndex((a) => a.startsWith('--'));
const names = firstFlag < 0 ? argv : argv.slice(0, firstFlag);
const passThrough = firstFlag < 0 ? [] : argv.slice(firstFlag);
const unknown = names.filter((n) => !(BENCHES as readonly string[]).includes(n));
if (unknown.length > 0) {
  process.stderr.write(`bench/run.ts: unknown benchmark(s) ${unknown.join(', ')}; known: ${BENCHES.join(', ')}\n`);
  process.exit(2);
}
const selected = names.length > 0 ? names : [...BENCHES];

process.env.ZKR_LIBRARY ??= 'dist';
// Contenders keep their per-section lines until they finish (testing's report(), CuratorWorker):
// output written, and parsed by the bench, during a run would take CPU from the contenders.
process.env.ZKR_REPORT ??= 'at-end';
if (process.env.ZKR_LIBRARY === 'dist') {
  const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
  execFileSync(process.execPath, [tsc, '-b'], { stdio: 'inherit', cwd: fileURLToPath(new URL('..', import.meta.url)) });
}

let failed = false;
for (const name of selected) {
  const script = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
  if (!existsSync(script)) {
    // The other recipes' benchmarks land separately; `npm run bench` runs what exists.
    if (names.length > 0) failed = true;
    process.stderr.write(`bench/run.ts: ${name}: no bench/${name}.ts${names.length > 0 ? '' : ' (skipped)'}\n`);
    continue;
  }
  process.stdout.write(`\n## ${name}\n\n`);
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, [...nodeScriptArgs(script), ...passThrough], { stdio: 'inherit' });
    // Ctrl-C reaches the child through the terminal's process group; just wait for it.
    child.once('close', (c) => resolve(c));
  });
  if (code !== 0) {
    failed = true;
    process.stderr.write(`bench/run.ts: ${name} exited with ${code}\n`);
  }
}
process.exit(failed ? 1 : 0);
