/**
 * The wire floor of the per-entity scenario of `npm run bench:compare`: node-zookeeper-client
 * alone sending what one uncontended section of our lock sends, with no lock logic: the create of
 * an EPHEMERAL_SEQUENTIAL node with the listing of its directory pipelined behind it, the hold,
 * the delete. It never waits for anyone, so two tasks on one key both "hold": it is what the wire
 * client and the server cost, the most a lock could reach, not a lock.
 *
 * usage: floorWorker.ts entities <connectString> <path> <holdMs> [tasks=32] [keys=1000]
 * Same protocol and figures as worker.ts (window.ts).
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { loopUntilStopped, MeasuredWindow } from './window.js';

interface WireClient {
  connect(): void;
  close(): void;
  once(event: 'connected', listener: () => void): void;
  create(path: string, data: Buffer, mode: number, callback: (error: Error | null, path: string) => void): void;
  getChildren(path: string, callback: (error: Error | null, children: string[]) => void): void;
  remove(path: string, version: number, callback: (error: Error | null) => void): void;
}

const [mode, connectString, path, holdArg, ...rest] = process.argv.slice(2);
if (mode !== 'entities' || connectString === undefined || path === undefined || holdArg === undefined) {
  throw new Error('usage: floorWorker.ts entities <connectString> <path> <holdMs> [tasks=32] [keys=1000]');
}
const options = new Map(rest.map((kv) => kv.split('=') as [string, string]));
const holdMs = Number(holdArg);
const tasks = Number(options.get('tasks') ?? 32);
const keys = Number(options.get('keys') ?? 1000);
const worker = process.env['ZKR_WORKER_NAME'] ?? `pid-${process.pid}`;

// The same client, at the same version, as @zk-recipes/core's.
const require = createRequire(fileURLToPath(new URL('../../packages/core/package.json', import.meta.url)));
const zk = require('node-zookeeper-client') as { createClient(cs: string, o: object): WireClient; CreateMode: { EPHEMERAL_SEQUENTIAL: number } };
const client = zk.createClient(connectString, { sessionTimeout: 30_000 });
await new Promise<void>((resolve) => {
  client.once('connected', resolve);
  client.connect();
});

// A node of ours carries its owner's host and pid as JSON, about this size.
const data = Buffer.from(JSON.stringify({ zkRecipes: 1, host: hostname(), pid: process.pid }));
const prefix = `_c_${randomUUID()}-lock-`;

async function section(w: MeasuredWindow, key: number): Promise<void> {
  const dir = `${path}/k${key}`;
  const acquireAt = process.hrtime.bigint();
  const created = new Promise<string>((resolve, reject) => client.create(`${dir}/${prefix}`, data, zk.CreateMode.EPHEMERAL_SEQUENTIAL, (e, p) => (e ? reject(e) : resolve(p))));
  const listed = new Promise<string[]>((resolve, reject) => client.getChildren(dir, (e, c) => (e ? reject(e) : resolve(c))));
  const node = await created;
  await listed;
  const heldAt = process.hrtime.bigint();
  if (holdMs > 0) await sleep(holdMs);
  const holdEndAt = process.hrtime.bigint();
  await new Promise<void>((resolve, reject) => client.remove(node, -1, (e) => (e ? reject(e) : resolve())));
  w.record(acquireAt, heldAt, holdEndAt, process.hrtime.bigint(), key);
}

try {
  const w = await MeasuredWindow.gate();
  await loopUntilStopped(w, tasks, () => section(w, Math.floor(Math.random() * keys)));
  w.finish({ worker, lock: 'floor' });
} finally {
  client.close();
}
