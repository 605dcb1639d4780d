/**
 * What one ZooKeeper request costs on this machine: a loop of sequential requests from one warm
 * session, timing the wall clock, this process's CPU (`process.cpuUsage`) and the server JVM's CPU
 * (`/proc/<pid>/stat`), per request: a read (getData) and a write pair (create + delete), through
 * ZkSession and through node-zookeeper-client's own API.
 *
 * Usage: node --import tsx bench/trace/requestCost.ts [--n 3000]
 * Starts its own server (the server's CPU needs its PID).
 */
import { createRequire } from 'node:module';
import { ZkSession } from '@zk-recipes/core';
import { TestingServer } from '@zk-recipes/testing';
import { processCpuMs } from '../lib/machine.js';

interface RawClient {
  once(event: 'connected', listener: () => void): void;
  connect(): void;
  close(): void;
  getData(path: string, callback: (err: Error | null) => void): void;
  create(path: string, data: null, mode: number, callback: (err: Error | null, path: string) => void): void;
  remove(path: string, callback: (err: Error | null) => void): void;
}
const raw = createRequire(import.meta.url)('node-zookeeper-client') as {
  createClient(connectString: string, options: { sessionTimeout: number }): RawClient;
  CreateMode: { EPHEMERAL_SEQUENTIAL: number };
};

async function measure(name: string, serverPid: number, n: number, op: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < Math.min(n, 2000); i++) await op(); // warm V8 and the server's JIT
  const cpu = process.cpuUsage();
  const server = processCpuMs(serverPid);
  const began = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await op();
  const wallMs = Number(process.hrtime.bigint() - began) / 1e6 / n;
  const used = process.cpuUsage(cpu);
  const perOp = (us: number): string => (us / 1000 / n).toFixed(3);
  process.stdout.write(
    `${name.padEnd(36)} wall ${wallMs.toFixed(3)} ms; client CPU ${perOp(used.user + used.system)} ms (system ${perOp(used.system)}); ` +
      `server CPU ${((processCpuMs(serverPid) - server) / n).toFixed(3)} ms\n`,
  );
}

const argv = process.argv.slice(2);
const n = argv.includes('--n') ? Number(argv[argv.indexOf('--n') + 1]) : 3000;
const server = await TestingServer.start();
try {
  const session = await ZkSession.connect({ connectString: server.connectString });
  const client = raw.createClient(server.connectString, { sessionTimeout: 10_000 });
  await new Promise<void>((resolve) => {
    client.once('connected', resolve);
    client.connect();
  });
  const call = <T>(fn: (cb: (err: Error | null, value: T) => void) => void): Promise<T> =>
    new Promise((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value))));
  for (let round = 0; round < 2; round++) {
    await measure('getData, ZkSession', server.pid, n, () => session.getData('/'));
    await measure('getData, node-zookeeper-client', server.pid, n, () => call<void>((cb) => client.getData('/', (err) => cb(err, undefined))));
    await measure('create + delete, ZkSession', server.pid, n, async () => {
      const { path } = await session.create('/request-cost-', null, { mode: 'ephemeral_sequential' });
      await session.delete(path);
    });
    await measure('create + delete, node-zookeeper-client', server.pid, n, async () => {
      const path = await call<string>((cb) => client.create('/request-cost-', null, raw.CreateMode.EPHEMERAL_SEQUENTIAL, cb));
      await call<void>((cb) => client.remove(path, (err) => cb(err, undefined)));
    });
  }
  client.close();
  await session.close();
} finally {
  await server.stop();
}
