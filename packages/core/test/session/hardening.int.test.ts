/**
 * The seven sharp edges of node-zookeeper-client 1.1.3, each reproduced against a real ZooKeeper
 * 3.8 server with the RAW wire client (so the test proves the failure exists in the installed
 * version) and shown handled by ZkSession. Failures that crash the process (2, 7) are reproduced
 * in a child process.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZkSession } from '../../src/session/index.js';
import { SessionLostError } from '../../src/errors.js';
import { FaultProxy } from '../../../testing/src/FaultProxy.js';
import { expireSession, nextEvent, pollUntil, startServer, uniqueRoot, type ServerHandle } from './support.js';
import { sessionInternals } from '../../src/internal.js';
import { expectTimely } from '../support/timeBound.js';
import { readTimeoutMs } from '../../src/session/livenessWatchdog.js';

const require = createRequire(import.meta.url);
// The raw wire client, for the reproductions only.
interface RawClient {
  connect(): void;
  close(): void;
  on(e: string, l: (...a: unknown[]) => void): void;
  once(e: string, l: (...a: unknown[]) => void): void;
  getState(): { name: string };
  getSessionId(): Buffer;
  getSessionPassword(): Buffer;
  getData(p: string, cb: (err: unknown, data?: Buffer) => void): void;
  setData(p: string, d: Buffer, v: number, cb: (err: unknown) => void): void;
  create(p: string, d: Buffer | null, mode: number | undefined, cb: (err: unknown, path?: string) => void): void;
  exists(p: string, cb: (err: unknown, stat?: unknown) => void): void;
  transaction(): { check(p: string, v: number): unknown; setData(p: string, d: Buffer, v: number): unknown; commit(cb: (err: unknown, results: unknown) => void): void };
  connectionManager: { pendingBuffer: Buffer | null };
}
const zk = require('node-zookeeper-client') as {
  createClient(cs: string, o: object): RawClient;
  CreateMode: Record<string, number | undefined>;
};

function rawConnected(cs: string, sessionTimeout = 4000): Promise<RawClient> {
  const c = zk.createClient(cs, { sessionTimeout, spinDelay: 100 });
  return new Promise((resolve) => {
    c.once('connected', () => resolve(c));
    c.connect();
  });
}

let server: ServerHandle;
let s: ZkSession;
const root = uniqueRoot('hardening');

beforeAll(async () => {
  server = await startServer();
  s = await ZkSession.connect({ connectString: server.connectString, sessionTimeoutMs: 4000 });
  await s.mkdirp(root);
});

afterAll(async () => {
  await s?.close();
  await server?.stop();
});

describe('hardening of node-zookeeper-client 1.1.3', () => {
  it('1. a connection dropped in the middle of a reply frame: raw client wedges; ZkSession reconnects', async () => {
    const big = `${root}/big`;
    await s.create(big, Buffer.alloc(4000, 7));

    // Reproduce: the raw client keeps the half frame and parses the next connect response after it.
    const rawProxy = await FaultProxy.start({ targetPort: server.port });
    const raw = await rawConnected(rawProxy.connectString);
    let rawReconnected = false;
    raw.on('connected', () => (rawReconnected = true));
    const rawCut = rawProxy.cutMidNextReply({ minLength: 4000 });
    let rawCallback = false;
    raw.getData(big, () => (rawCallback = true));
    await rawCut;
    // The new connection is up and the server has answered its connect request...
    await pollUntil(() => rawProxy.frames.some((f) => f.connection === 2 && f.direction === 'reply'), 5000, 'connect response on the new connection');
    // ...yet the raw client is stuck behind the stale half frame.
    await pollUntil(() => (raw.connectionManager.pendingBuffer?.length ?? 0) > 2000, 5000, 'stale pending buffer');
    expect(rawReconnected).toBe(false);
    expect(raw.getState().name).not.toBe('SYNC_CONNECTED');
    expect(rawCallback).toBe(true); // failed with CONNECTION_LOSS; nothing after it will ever work
    raw.close();
    await rawProxy.close();

    // Handled: ZkSession drops the partial frame with its socket and reconnects to the same session.
    const proxy = await FaultProxy.start({ targetPort: server.port });
    const c = await ZkSession.connect({ connectString: proxy.connectString, sessionTimeoutMs: 4000 });
    try {
      const sid = c.sessionId;
      const reconnected = nextEvent(c, 'reconnected', 10_000);
      const cut = proxy.cutMidNextReply({ minLength: 4000 });
      await expect(c.getData(big)).rejects.toMatchObject({ code: 'CONNECTION_LOSS' });
      await cut;
      await reconnected;
      expect(c.sessionId).toBe(sid);
      expect((await c.getData(big)).data.length).toBe(4000);
    } finally {
      await c.close();
      await proxy.close();
    }
  });

  it('2. an error code the wire client does not know (QUOTA_EXCEEDED -125): raw client crashes; ZkSession rejects with ZOOKEEPER_ERROR', async () => {
    const q = `${root}/quota`;
    await s.create(q, null);
    // A hard count quota of 2 (the node itself + 1 child), enforced with -Dzookeeper.enforceQuota=true.
    await s.mkdirp(`/zookeeper/quota${q}`);
    await s.create(`/zookeeper/quota${q}/zookeeper_limits`, Buffer.from('count=-1,bytes=-1,countHardLimit=2,byteHardLimit=-1'));
    await s.create(`/zookeeper/quota${q}/zookeeper_stats`, Buffer.from('count=0,bytes=0'));
    await s.create(`${q}/one`, null);

    // Reproduce in a child process: the throw happens inside the socket 'data' handler.
    const script = `
      const zk = require('node-zookeeper-client');
      const c = zk.createClient(${JSON.stringify(server.connectString)}, { sessionTimeout: 4000 });
      c.once('connected', () => c.create(${JSON.stringify(`${q}/two`)}, (err) => { console.log('CALLBACK', err && err.code); process.exit(0); }));
      c.connect();
      setTimeout(() => { console.log('NO CALLBACK'); process.exit(3); }, 8000);
    `;
    // Not spawnSync: blocking this process for the child's run would starve session `s` of its
    // pings on a loaded machine, and its next request would meet a dropped connection.
    const child = await runScript(script);
    expect(child.stdout).not.toContain('CALLBACK');
    expect(child.stderr).toContain('Unknown code: -125');
    expect(child.status).not.toBe(0);

    // Handled.
    const err = await s.create(`${q}/two`, null).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'ZOOKEEPER_ERROR', zkCode: -125, op: 'create', path: `${q}/two` });
    expect(s.state).toBe('connected');
    expect(await s.exists(`${q}/one`)).not.toBeNull();
  });

  it('3. a server that stops answering (SIGSTOP): raw client never notices; ZkSession suspends at ~2/3 and declares lost before the server can expire the session', async () => {
    const own = await startServer();
    try {
      const raw = await rawConnected(own.connectString, 4000);
      let rawDisconnected = false;
      raw.on('disconnected', () => (rawDisconnected = true));
      const c = await ZkSession.connect({ connectString: own.connectString, sessionTimeoutMs: 4000 });
      const timeout = c.negotiatedSessionTimeoutMs;
      const suspended = nextEvent(c, 'suspended', 10_000);
      const lost = nextEvent(c, 'lost', 10_000);
      const t0 = performance.now();
      await own.pause();
      // The last request the server answered before it stopped: the session clock runs from its send time.
      const { lastAnsweredSentAt, marginMs } = sessionInternals(c).livenessClock;
      const pending = c.getData('/').catch((e: unknown) => e);
      await suspended;
      const suspendedAfter = performance.now() - t0;
      // The read timeout, then the watchdog's poll and the event, judged against the machine's load.
      expectTimely('suspended after the server stopped', suspendedAfter, { fixedMs: readTimeoutMs(timeout), scaledMs: timeout * 0.9 - readTimeoutMs(timeout) });
      const [reason] = await lost;
      const lostAt = performance.now();
      expect(reason).toBeInstanceOf(SessionLostError);
      // Lost at the deadline, and before the earliest moment the server could expire the session.
      expect(lostAt).toBeGreaterThanOrEqual(lastAnsweredSentAt + timeout - marginMs);
      // The lost timer fires within the margin of its due time on a machine that runs it on time
      // (a time bound: the margin × the machine's slowness).
      expectTimely(`the lost timer past its due time (${marginMs} ms before the earliest expiry)`, lostAt - (lastAnsweredSentAt + timeout - marginMs), marginMs);
      expect(await pending).toMatchObject({ code: 'CONNECTION_LOSS' });
      // A full session timeout later, the raw client still believes it is connected.
      expect(rawDisconnected).toBe(false);
      expect(raw.getState().name).toBe('SYNC_CONNECTED');

      // When the server comes back, ZkSession builds a new ZooKeeper session.
      const connected = nextEvent(c, 'connected', 20_000);
      await own.resume();
      await connected;
      expect(c.generation).toBe(2);
      expect(await c.exists('/')).not.toBeNull();
      await c.close();
      raw.close();
    } finally {
      await own.resume();
      await own.stop();
    }
  });

  it('4. requests issued while disconnected when the session expires: raw callback never fires; ZkSession rejects with SessionLostError', async () => {
    // Reproduce with the raw client.
    const rawProxy = await FaultProxy.start({ targetPort: server.port });
    const raw = await rawConnected(rawProxy.connectString);
    const rawExpired = new Promise<void>((resolve) => raw.once('expired', () => resolve()));
    const rawDisconnected = new Promise<void>((resolve) => raw.once('disconnected', () => resolve()));
    rawProxy.refuseConnections();
    rawProxy.dropConnections();
    await rawDisconnected;
    let rawCalled = false;
    raw.getData(root, () => (rawCalled = true));
    await expireSession(server.connectString, { sessionId: raw.getSessionId(), password: raw.getSessionPassword() });
    rawProxy.refuseConnections(false);
    await rawExpired;
    // The expiry has been processed; the queued request was never called back.
    let afterExpiry = false;
    setTimeout(() => (afterExpiry = true), 500);
    await pollUntil(() => afterExpiry, 2000);
    expect(rawCalled).toBe(false);
    raw.close();
    await rawProxy.close();

    // Handled.
    const proxy = await FaultProxy.start({ targetPort: server.port });
    const c = await ZkSession.connect({ connectString: proxy.connectString, sessionTimeoutMs: 4000 });
    try {
      const suspended = nextEvent(c, 'suspended');
      proxy.refuseConnections();
      proxy.dropConnections();
      await suspended;
      const signal = c.sessionSignal;
      const queued = [c.getData(root), c.create(`${root}/while-down`, null), c.getChildren(root)];
      const lost = nextEvent(c, 'lost');
      await expireSession(server.connectString, sessionInternals(c).credentials);
      proxy.refuseConnections(false);
      await lost;
      for (const r of await Promise.allSettled(queued)) {
        expect(r.status).toBe('rejected');
        expect((r as PromiseRejectedResult).reason).toBeInstanceOf(SessionLostError);
      }
      expect(signal.aborted).toBe(true);
      await c.waitForConnected();
      expect(c.generation).toBe(2);
      expect(await s.exists(`${root}/while-down`)).toBeNull();
    } finally {
      await c.close();
      await proxy.close();
    }
  });

  it('5. transaction versions: raw client treats 0 as "any"; ZkSession checks version 0', async () => {
    const p = `${root}/v`;
    await s.create(p, Buffer.from('a'));
    await s.setData(p, Buffer.from('b')); // now at version 1

    const raw = await rawConnected(server.connectString);
    const tx = raw.transaction();
    tx.check(p, 0);
    const rawResult = await new Promise<unknown>((resolve) => tx.commit((err) => resolve(err)));
    expect(rawResult).toBeNull(); // the bug: a check of version 0 passed on a node at version 1
    raw.close();

    await expect(s.transaction([{ type: 'check', path: p, version: 0 }])).rejects.toMatchObject({ code: 'BAD_VERSION', path: p });
    await expect(s.transaction([{ type: 'setData', path: p, data: Buffer.from('c'), version: 0 }])).rejects.toMatchObject({ code: 'BAD_VERSION' });
    await expect(s.transaction([{ type: 'delete', path: p, version: 0 }])).rejects.toMatchObject({ code: 'BAD_VERSION' });
    expect((await s.getData(p)).data.toString()).toBe('b');
    await s.transaction([{ type: 'check', path: p, version: 1 }, { type: 'delete', path: p, version: 1 }]);
    expect(await s.exists(p)).toBeNull();
  });

  it('6. CONTAINER: raw client silently creates a persistent node; ZkSession creates a real container the server reaps', async () => {
    const rawC = `${root}/raw-container`;
    const ourC = `${root}/our-container`;
    const txC = `${root}/tx-container`;
    const raw = await rawConnected(server.connectString);
    await new Promise<void>((resolve, reject) =>
      raw.create(rawC, null, zk.CreateMode['CONTAINER'], (err) => (err ? reject(err) : resolve())),
    );
    raw.close();
    await s.create(ourC, null, { mode: 'container' });
    await s.transaction([{ type: 'create', path: txC, mode: 'container' }]);
    for (const dir of [rawC, ourC, txC]) {
      await s.create(`${dir}/child`, null);
      await s.delete(`${dir}/child`);
    }
    // The server's container reaper (every 100 ms here) deletes our empty containers...
    await pollUntil(async () => (await s.exists(ourC)) === null && (await s.exists(txC)) === null, 10_000, 'containers reaped');
    // ...and, in the same passes, left the raw client's "container" alone: it is a persistent node.
    expect(await s.exists(rawC)).not.toBeNull();
  });

  it('7. a throwing callback inside the socket handler: raw client crashes the process; ZkSession never runs user code there', async () => {
    const script = `
      const zk = require('node-zookeeper-client');
      const c = zk.createClient(${JSON.stringify(server.connectString)}, { sessionTimeout: 4000 });
      c.once('connected', () => c.exists('/', () => { throw new Error('user bug in callback'); }));
      c.connect();
      setTimeout(() => { console.log('SURVIVED'); process.exit(0); }, 8000);
    `;
    // Not spawnSync: blocking this process for the child's run would starve session `s` of its
    // pings on a loaded machine, and its next request would meet a dropped connection.
    const child = await runScript(script);
    expect(child.stdout).not.toContain('SURVIVED');
    expect(child.stderr).toContain('user bug in callback');
    const stack = child.stderr;
    expect(stack).toMatch(/onSocketData/);

    // Handled: replies settle promises (user code runs in promise jobs, not in the socket handler),
    // watchers and state listeners are delivered later with their throws caught (see also
    // ZkSession.int.test.ts 'hardening 7').
    const p = `${root}/seven`;
    await s.create(p, null);
    const errors: Error[] = [];
    const onError = (e: Error): void => void errors.push(e);
    s.on('error', onError);
    try {
      await s.getData(p, () => {
        throw new Error('watcher bug');
      });
      await s.setData(p, Buffer.from('x'));
      await pollUntil(() => errors.length > 0, 5000, 'error event');
      expect(errors[0]?.message).toBe('watcher bug');
      expect(s.state).toBe('connected');
    } finally {
      s.off('error', onError);
    }
  });
});

/** Runs `script` in a child node process; resolves with its exit status and output once it exits (killed at 20 s). */
function runScript(script: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['-e', script], { cwd: process.cwd(), encoding: 'utf8', timeout: 20_000 }, (err, stdout, stderr) => {
      const status = err === null ? 0 : typeof err.code === 'number' ? err.code : null;
      resolve({ status, stdout, stderr });
    });
  });
}
