#!/usr/bin/env node
// `npm test`: makes sure a ZooKeeper (and the JDK and Curator jars) is there, typechecks, runs
// vitest's unit and integration projects (arguments after `npm test --` go to vitest; the `long`
// project is `npm run test:long`'s), and says at the end how long the whole
// took and on what machine: a time-bound failure is read against the machine's load. Plain Node,
// no dependencies.
import { spawnSync } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const started = performance.now();
const steps = [];

function step(name, command, args) {
  const at = performance.now();
  const { status, signal } = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  steps.push(`${name} ${duration(performance.now() - at)}`);
  return status ?? (signal ? 128 : 1);
}

function duration(ms) {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

// Through npm itself when run by npm (`npm_execpath`), so that `typecheck` stays defined in one place.
const npm = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ['npm', []];
let status = step('ZooKeeper check', process.execPath, [join(root, 'scripts', 'ensure-zookeeper.mjs'), '--with-curator']);
if (status === 0) status = step('typecheck', npm[0], [...npm[1], 'run', 'typecheck']);
// The unit and integration projects; the long runs are `npm run test:long`'s (unless a project is named).
const args = process.argv.slice(2);
const projects = args.some((a) => a === '--project' || a.startsWith('--project=')) ? [] : ['--project', 'unit', '--project', 'integration'];
if (status === 0) status = step('tests', process.execPath, [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...projects, ...args]);

const machine = `${availableParallelism()} cores, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} (1, 5, 15 min)`;
const verdict = status === 0 ? 'passed' : `FAILED (exit ${status})`;
process.stdout.write(`\nnpm test: ${verdict} in ${duration(performance.now() - started)} (${steps.join(', ')}); machine: ${machine}\n`);
process.exit(status);
