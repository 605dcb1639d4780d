/**
 * Which source files one contended acquire passes through: `npm run bench:hot-path`.
 *
 * Two sessions (two ZooKeeper sessions in this process) contend for one InterProcessMutex: the
 * first holds it, the second's acquire enqueues, waits, and is granted when the first releases.
 * V8's precise coverage is reset right before the second acquire and read right after it is
 * granted, so the report lists every source file with code that ran for that acquisition (and for
 * the release that ended its wait), split into the lock layers (recipe, front-end, engine, waits,
 * stops, node names) and the session below them (the wire client, counted apart: Curator's "3
 * files" for the same walk do not count its client either). Runs the TypeScript sources.
 *
 * Usage: npm run bench:hot-path [-- --rounds 5] (with ZK_CONNECT it uses that server)
 */
import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';
import { relative } from 'node:path';
import { ZkSession } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { TestingServer } from '@zk-recipes/testing';
import { numberFlag } from './lib/flags.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const rounds = numberFlag(process.argv, '--rounds', 5);

interface ScriptCoverage {
  url: string;
  functions: Array<{ ranges: Array<{ count: number }> }>;
}

/** The repository's source files (packages/<name>/src) with any code that ran since the last take. */
async function filesThatRan(inspector: Session): Promise<string[]> {
  const { result } = (await inspector.post('Profiler.takePreciseCoverage')) as { result: ScriptCoverage[] };
  const files = new Set<string>();
  for (const script of result) {
    if (!script.url.startsWith('file://')) continue;
    const file = relative(ROOT, fileURLToPath(script.url));
    if (!/^packages\/[^/]+\/src\//.test(file)) continue;
    if (script.functions.some((fn) => fn.ranges.some((range) => range.count > 0))) files.add(file);
  }
  return [...files].sort();
}

const server = process.env['ZK_CONNECT'] === undefined ? await TestingServer.start() : undefined;
const connectString = process.env['ZK_CONNECT'] ?? server!.connectString;
const inspector = new Session();
inspector.connect();
const holderSession = await ZkSession.connect({ connectString });
const waiterSession = await ZkSession.connect({ connectString });
try {
  await inspector.post('Profiler.enable');
  // callCount, not block coverage: a function that ran once counts; the counts reset at each take.
  await inspector.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  const path = `/zk-recipes-hot-path/${Date.now().toString(36)}`;
  const holder = new InterProcessMutex(holderSession, path);
  const waiter = new InterProcessMutex(waiterSession, path);
  let lockLayers: string[] = [];
  let session: string[] = [];
  // Warm rounds first: module-level code that runs once (imports, first-use caches) is not the walk.
  for (let round = 0; round < rounds; round++) {
    const held = await holder.acquire();
    await filesThatRan(inspector);
    const granted = waiter.acquire();
    // Released once the waiter's node is queued behind the holder (a plain listing: session code only).
    while ((await holderSession.getChildren(path)).children.length < 2) await new Promise((resolve) => setImmediate(resolve));
    await held.release();
    const handle = await granted;
    const files = await filesThatRan(inspector);
    await handle.release();
    lockLayers = files.filter((file) => !file.startsWith('packages/core/src/session/') && !file.startsWith('packages/testing/'));
    session = files.filter((file) => file.startsWith('packages/core/src/session/'));
  }
  process.stdout.write(`One contended InterProcessMutex acquire (waited, then granted on the holder's release), round ${rounds} of ${rounds}:\n\n`);
  process.stdout.write(`Lock layers: ${lockLayers.length} files\n${lockLayers.map((file) => `  ${file}`).join('\n')}\n\n`);
  process.stdout.write(`Session (the wire client, below the lock layers): ${session.length} files\n${session.map((file) => `  ${file}`).join('\n')}\n`);
} finally {
  await holderSession.close();
  await waiterSession.close();
  inspector.disconnect();
  await server?.stop();
}
