/**
 * Test support for the session tests: real ZooKeeper 3.8 servers with the settings these tests
 * need (short tickTime, container reaping every 100 ms, quota enforcement), four-letter words,
 * event waiting and server-side session expiry.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestingServer, expireSession, testConnectString } from '@zk-recipes/testing';
import type { ZkSession } from '../../src/session/index.js';
import type { ZkSessionEvents } from '../../src/session/types.js';

const CLASSPATH = '/usr/share/java/zookeeper.jar:/usr/share/java/zookeeper-jute.jar:/usr/share/java/*';

export interface ServerHandle {
  port: number;
  connectString: string;
  readonly pid: number;
  kill(): Promise<void>;
  /** Starts a killed/stopped server again (same config and data) and waits until it serves. */
  restart(): Promise<void>;
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Sends a ZooKeeper four-letter word and returns the answer ('' if the server does not answer). */
export function fourLetter(port: number, word: string, timeoutMs = 1000): Promise<string> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    let out = '';
    const timer = setTimeout(() => sock.destroy(), timeoutMs);
    sock.on('connect', () => sock.write(word));
    sock.on('data', (d) => (out += d.toString()));
    sock.on('error', () => undefined);
    sock.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}

/** Polls `fn` until it returns a truthy value or the deadline passes (observing the server). */
export async function pollUntil<T>(fn: () => Promise<T> | T, timeoutMs: number, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Resolves with the event's arguments the next time `session` emits it. */
export function nextEvent<E extends keyof ZkSessionEvents>(
  session: ZkSession,
  event: E,
  timeoutMs = 30_000,
): Promise<Parameters<ZkSessionEvents[E]>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no '${String(event)}' within ${timeoutMs} ms`)), timeoutMs);
    session.once(event, ((...args: Parameters<ZkSessionEvents[E]>) => {
      clearTimeout(timer);
      resolve(args);
    }) as never);
  });
}

interface ServerSpec {
  dir: string;
  port: number;
  cfg: string;
  myid?: number;
  jvmProps: string[];
}

function launch(spec: ServerSpec): ChildProcess {
  const child = spawn(
    'java',
    [
      '-Xmx128m',
      '-XX:TieredStopAtLevel=1',
      '-Dzookeeper.log.threshold=WARN',
      ...spec.jvmProps,
      '-cp',
      CLASSPATH,
      'org.apache.zookeeper.server.quorum.QuorumPeerMain',
      spec.cfg,
    ],
    { stdio: 'ignore', detached: false },
  );
  return child;
}

function handle(spec: ServerSpec, proc: { child: ChildProcess }): ServerHandle {
  const h: ServerHandle = {
    port: spec.port,
    connectString: `127.0.0.1:${spec.port}`,
    get pid() {
      return proc.child.pid ?? -1;
    },
    async kill() {
      await stopChild(proc.child, 'SIGKILL');
    },
    async restart() {
      await stopChild(proc.child, 'SIGKILL');
      proc.child = launch(spec);
      await pollUntil(async () => /Mode: (leader|follower|standalone)/.test(await fourLetter(spec.port, 'srvr', 500)), 60_000, `restart of ${spec.port}`);
    },
    pause() {
      proc.child.kill('SIGSTOP');
    },
    resume() {
      proc.child.kill('SIGCONT');
    },
    async stop() {
      proc.child.kill('SIGCONT');
      await stopChild(proc.child, 'SIGTERM');
    },
  };
  return h;
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill(signal);
  const t = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(t);
}

export interface ServerOptions {
  tickTimeMs?: number;
  systemProperties?: Record<string, string>;
}

const DEFAULT_PROPS = {
  // Reap empty containers fast (default 60 s) so the CREATE_CONTAINER test can observe it.
  'znode.container.checkIntervalMs': '100',
  // Hard quotas are enforced only with this flag (QUOTA_EXCEEDED = -125, unknown to the wire client).
  'zookeeper.enforceQuota': 'true',
};

function props(o: ServerOptions): string[] {
  return Object.entries({ ...DEFAULT_PROPS, ...o.systemProperties }).map(([k, v]) => `-D${k}=${v}`);
}

/** One standalone server (TestingServer) with this file's system properties. */
export async function startServer(o: ServerOptions = {}): Promise<ServerHandle> {
  return TestingServer.start({
    forceSync: false,
    tickTimeMs: o.tickTimeMs ?? 200,
    minSessionTimeoutMs: 2 * (o.tickTimeMs ?? 200),
    maxSessionTimeoutMs: 20 * (o.tickTimeMs ?? 200),
    systemProperties: { ...DEFAULT_PROPS, ...o.systemProperties },
  });
}

/**
 * The shared integration server (global setup, or ZK_CONNECT) as host + port of its first
 * server, for tests that put a FaultProxy in front of it.
 */
export function sharedServer(): { connectString: string; host: string; port: number } {
  const connectString = testConnectString();
  const first = connectString.split('/')[0]!.split(',')[0]!.trim();
  const colon = first.lastIndexOf(':');
  return { connectString, host: first.slice(0, colon).replace(/^\[|\]$/g, ''), port: Number(first.slice(colon + 1)) };
}

/** A 3-server ensemble on loopback. */
export async function startCluster(
  o: ServerOptions = {},
): Promise<{ connectString: string; servers: ServerHandle[]; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'zkr-cluster-'));
  const ports = await Promise.all([0, 1, 2].map(async () => [await freePort(), await freePort(), await freePort()]));
  const lines = ports.map(([, peer, election], i) => `server.${i + 1}=127.0.0.1:${peer}:${election}`);
  const servers: ServerHandle[] = [];
  const procs: Array<{ child: ChildProcess }> = [];
  for (let i = 0; i < 3; i++) {
    const sdir = join(dir, `s${i + 1}`);
    mkdirSync(join(sdir, 'data'), { recursive: true });
    writeFileSync(join(sdir, 'data', 'myid'), String(i + 1));
    const cfg = join(sdir, 'zoo.cfg');
    writeFileSync(
      cfg,
      [
        `tickTime=${o.tickTimeMs ?? 200}`,
        'initLimit=50',
        'syncLimit=10',
        `dataDir=${join(sdir, 'data')}`,
        `clientPort=${ports[i]![0]}`,
        'clientPortAddress=127.0.0.1',
        'admin.enableServer=false',
        '4lw.commands.whitelist=*',
        'forceSync=no',
        'maxClientCnxns=0',
        ...lines,
      ].join('\n'),
    );
    const spec: ServerSpec = { dir: sdir, port: ports[i]![0]!, cfg, myid: i + 1, jvmProps: props(o) };
    const proc = { child: launch(spec) };
    procs.push(proc);
    servers.push(handle(spec, proc));
  }
  await pollUntil(
    async () => {
      const modes = await Promise.all(servers.map((s) => fourLetter(s.port, 'srvr', 500)));
      return modes.every((m) => /Mode: (leader|follower)/.test(m));
    },
    60_000,
    'quorum',
  );
  return {
    connectString: servers.map((s) => s.connectString).join(','),
    servers,
    async stop() {
      await Promise.all(servers.map((s) => s.stop()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export { expireSession };

/** Which server of `servers` currently holds a connection of session `sessionIdHex`. */
export async function serverOfSession(servers: ServerHandle[], sessionIdHex: string): Promise<number> {
  const sid = `sid=0x${sessionIdHex.replace(/^0+/, '')}`;
  for (let i = 0; i < servers.length; i++) {
    const cons = await fourLetter(servers[i]!.port, 'cons', 500);
    if (cons.includes(sid)) return i;
  }
  return -1;
}

export { uniqueRoot } from '@zk-recipes/testing';
