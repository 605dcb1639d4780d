/**
 * What the diagnostics channels cost an acquisition: `npm run bench:channels`.
 *
 * Uncontended InterProcessMutex acquire/release pairs on one warm session, alternately with nobody
 * subscribed to the zk-recipes channels and with a (no-op) subscriber on all four. Per mode:
 *
 * - allocated: V8 heap bytes allocated per pair, read as the growth of `heapUsed` across a sample
 *   with no garbage collection in it (a young generation large enough for the whole sample:
 *   `--min-semi-space-size`; a sample in which a GC ran anyway is discarded and counted);
 * - retained: heap bytes kept per HELD acquisition (locks built first, then acquired, measured
 *   after full collections: `--expose-gc`; two alternating rounds, the second reported);
 * - time per pair (µs, median of the samples).
 *
 * Runs the compiled `dist/` (what users run): tsx's transform would add allocations of its own.
 * Only public API: the same script runs on a commit without the channels (nobody publishes there).
 *
 * `--owner-data`: the locks are given the owner data as their `data` option, so that a commit
 * that wrote empty nodes by default sends the same requests as one that writes owner data.
 *
 * Usage: npm run bench:channels [-- --pairs 1000 --samples 6 --held 2000 --owner-data] (ZK_CONNECT: use that server)
 */
import diagnostics from 'node:diagnostics_channel';
import { PerformanceObserver } from 'node:perf_hooks';
import { hostname } from 'node:os';
import { encodeOwnerData, ZkSession } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { TestingServer } from '@zk-recipes/testing';
import { numberFlag } from './lib/flags.js';
import { usedHeapAfterGc } from './lib/heap.js';
import { machineInfo, zookeeperVersion } from './lib/machine.js';

const pairs = numberFlag(process.argv, '--pairs', 1000);
const samples = numberFlag(process.argv, '--samples', 6);
const heldCount = numberFlag(process.argv, '--held', 2000);
const data = process.argv.includes('--owner-data') ? encodeOwnerData({ host: hostname(), pid: process.pid }) : undefined;

type Mode = 'no subscriber' | 'subscribed';
const MODES: Mode[] = ['no subscriber', 'subscribed'];

/** Subscribes a no-op listener to every zk-recipes channel; returns the unsubscribe. */
function subscribeAll(): () => void {
  const noop = (): void => undefined;
  const tracing = { start: noop, end: noop, asyncStart: noop, asyncEnd: noop, error: noop };
  const acquire = diagnostics.tracingChannel('zk-recipes:acquire');
  acquire.subscribe(tracing);
  for (const name of ['zk-recipes:release', 'zk-recipes:lost', 'zk-recipes:session']) diagnostics.subscribe(name, noop);
  return () => {
    acquire.unsubscribe(tracing);
    for (const name of ['zk-recipes:release', 'zk-recipes:lost', 'zk-recipes:session']) diagnostics.unsubscribe(name, noop);
  };
}

let gcs = 0;
const gcObserver = new PerformanceObserver((list) => (gcs += list.getEntries().length));
gcObserver.observe({ entryTypes: ['gc'] });

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor((sorted.length - 1) / 2)]!;
};

const server = process.env['ZK_CONNECT'] === undefined ? await TestingServer.start() : undefined;
const connectString = process.env['ZK_CONNECT'] ?? server!.connectString;
const session = await ZkSession.connect({ connectString });
const base = `/zk-recipes-bench-channels/${Date.now().toString(36)}`;
try {
  const mutex = new InterProcessMutex(session, `${base}/pairs`, { data });
  // Warm: the JIT, the lock directory, the session's buffers.
  for (let i = 0; i < 3000; i++) await (await mutex.acquire()).release();
  const allocated: Record<Mode, number[]> = { 'no subscriber': [], subscribed: [] };
  const micros: Record<Mode, number[]> = { 'no subscriber': [], subscribed: [] };
  const discarded: Record<Mode, number> = { 'no subscriber': 0, subscribed: 0 };
  for (let sample = 0; sample < samples; sample++) {
    for (const mode of MODES) {
      const unsubscribe = mode === 'subscribed' ? subscribeAll() : undefined;
      for (let i = 0; i < 200; i++) await (await mutex.acquire()).release(); // this mode's code warm
      usedHeapAfterGc();
      await new Promise((resolve) => setImmediate(resolve)); // the GC entries of the collection above
      gcObserver.takeRecords();
      gcs = 0;
      const before = process.memoryUsage().heapUsed;
      const startedAt = performance.now();
      for (let i = 0; i < pairs; i++) await (await mutex.acquire()).release();
      const elapsed = performance.now() - startedAt;
      const after = process.memoryUsage().heapUsed;
      gcs += gcObserver.takeRecords().length;
      unsubscribe?.();
      micros[mode].push((elapsed * 1000) / pairs);
      if (gcs === 0) allocated[mode].push((after - before) / pairs);
      else discarded[mode]++;
    }
  }

  // Retained per held acquisition: the locks exist before the first reading, so only what an
  // acquisition keeps is counted.
  // Two rounds, alternating; the second is reported (the first also pays for one-time work).
  const retained: Record<Mode, number> = { 'no subscriber': 0, subscribed: 0 };
  for (const [round, mode] of [...MODES, ...MODES].entries()) {
    const locks = Array.from({ length: heldCount }, (_, i) => new InterProcessMutex(session, `${base}/held-${round}/${i}`, { data }));
    // Each directory created once beforehand: the held run measures acquisitions only.
    for (let i = 0; i < heldCount; i += 100) await Promise.all(locks.slice(i, i + 100).map(async (lock) => (await lock.acquire()).release()));
    const unsubscribe = mode === 'subscribed' ? subscribeAll() : undefined;
    const before = usedHeapAfterGc();
    const handles = [];
    for (let i = 0; i < heldCount; i += 100) handles.push(...(await Promise.all(locks.slice(i, i + 100).map((lock) => lock.acquire()))));
    const after = usedHeapAfterGc();
    retained[mode] = (after - before) / heldCount;
    for (let i = 0; i < heldCount; i += 100) await Promise.all(handles.slice(i, i + 100).map((handle) => handle.release()));
    unsubscribe?.();
  }

  const machine = machineInfo();
  const lines = [
    `Channels cost${data === undefined ? '' : ' (owner data given as data)'}: ${pairs} uncontended acquire/release pairs per sample, ${samples} samples per mode (alternating), ${heldCount} held acquisitions`,
    `machine: ${machine.nproc} CPU ${machine.cpuModel}, ${machine.memoryGiB.toFixed(1)} GiB, Node ${machine.node}, load ${machine.loadAverage}; ZooKeeper ${await zookeeperVersion(connectString)}`,
    '',
    '| mode | allocated per pair (median of GC-free samples) | samples kept | retained per held acquisition | time per pair (median) |',
    '|---|---|---|---|---|',
    ...MODES.map(
      (mode) =>
        `| ${mode} | ${Math.round(median(allocated[mode]))} B (${allocated[mode].map((b) => Math.round(b)).join(', ')}) | ${allocated[mode].length} of ${samples} | ${Math.round(retained[mode])} B | ${median(micros[mode]).toFixed(0)} µs |`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (discarded['no subscriber'] + discarded.subscribed > 0) process.stdout.write(`(samples with a GC in them, discarded: ${JSON.stringify(discarded)})\n`);
} finally {
  gcObserver.disconnect();
  await session.close();
  await server?.stop();
}
