/**
 * One contender of the CLI tests, in a process (and a ZooKeeper session) of its own: takes one
 * lock and holds it until told. Prints JSON lines: `session` (its session id) at start,
 * `acquired` (the node) once it holds, `revoked` when asked to release, `released`.
 * Reads commands on stdin: `release`, `exit`.
 * Usage: contender.ts <connectString> <path> <recipe: mutex|read|write|semaphore> [<options JSON>]
 * Options: { label?: string (the session's label, in its owner data), owner?: false (empty data: no owner),
 *   onRevoke?: true (release when asked to), leases?: n, maxLeases?: n, layout?: 'queue'|'curator' }
 */
import { createInterface } from 'node:readline';
import { ZkSession, type AcquireOptions } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { InterProcessSemaphore } from '@zk-recipes/semaphore';
import { report } from '@zk-recipes/testing';

interface Options {
  label?: string;
  owner?: false;
  onRevoke?: true;
  leases?: number;
  maxLeases?: number;
  layout?: 'queue' | 'curator';
}

const [connectString, path, recipe, optionsJson] = process.argv.slice(2);
if (connectString === undefined || path === undefined || recipe === undefined) throw new Error('usage: contender.ts <connectString> <path> <recipe> [<options JSON>]');
const options = JSON.parse(optionsJson ?? '{}') as Options;
// Owner data is the default (with the session's label); a caller's own data, empty here, replaces it.
const data = options.owner === false ? new Uint8Array(0) : undefined;

const session = await ZkSession.connect({ connectString, sessionTimeoutMs: 10_000, ...(options.label === undefined ? {} : { label: options.label }) });
report({ type: 'session', sessionId: session.sessionId, pid: process.pid });

let release: (() => Promise<void>) | undefined;
let releasing: Promise<void> | undefined;
const releaseOnce = () => (releasing ??= release!().then(() => report({ type: 'released' })));
const acquireOptions: AcquireOptions = {
  onRevoke: () => {
    report({ type: 'revoked' });
    if (options.onRevoke === true) void releaseOnce();
  },
};

const commands = createInterface({ input: process.stdin });
commands.on('line', (line) => {
  if (line === 'release') void releaseOnce();
  if (line === 'exit') void session.close().then(() => process.exit(0));
});
commands.on('close', () => void session.close().then(() => process.exit(0)));

if (recipe === 'mutex') {
  const handle = await new InterProcessMutex(session, path, { data }).acquire(acquireOptions);
  release = () => handle.release();
  report({ type: 'acquired', node: handle.path });
} else if (recipe === 'read' || recipe === 'write') {
  const rw = new InterProcessReadWriteLock(session, path, { data });
  const handle = await (recipe === 'read' ? rw.readLock() : rw.writeLock()).acquire(acquireOptions);
  release = () => handle.release();
  report({ type: 'acquired', node: handle.path });
} else if (recipe === 'semaphore') {
  const semaphore = new InterProcessSemaphore(session, path, { maxLeases: options.maxLeases ?? 1, layout: options.layout ?? 'queue', data });
  const leases = await semaphore.acquireMany(options.leases ?? 1, acquireOptions);
  release = async () => {
    for (const lease of leases) await lease.release();
  };
  report({ type: 'acquired', node: leases[0]!.path });
} else {
  throw new Error(`unknown recipe ${recipe}`);
}
