/**
 * TLS sessions against real TLS servers (docs/security.md): every recipe over TLS, x509 ACLs,
 * the failures `connect()` reports at once, and failover between the TLS servers of an ensemble.
 */
import net from 'node:net';
import { createServer as createTlsServer, connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TlsHandshakeError, ZkSession, isZkError, type TlsOptions, type ZkSessionOptionsInput } from '@zk-recipes/core';
import { InterProcessMultiLock } from '@zk-recipes/multi-lock';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { InterProcessSemaphore } from '@zk-recipes/semaphore';
import { TestingCluster, TestingServer, type TestingTls } from '@zk-recipes/testing';
import { failedConnect, pollUntil } from './support.js';
import { expectSoonerThan } from '../support/timeBound.js';

/** The timeout the fail-fast tests must beat by far. */
const CONNECTION_TIMEOUT_MS = 10_000;

let server: TestingServer;
let tls: TestingTls;
const sessions: ZkSession[] = [];

beforeAll(async () => {
  server = await TestingServer.start({ forceSync: false, tickTimeMs: 200, minSessionTimeoutMs: 400, tls: true });
  tls = server.tls!;
}, 60_000);

afterAll(async () => {
  await Promise.all(sessions.map((s) => s.close()));
  await server?.stop();
});

const as = (who: 'alice' | 'bob'): TlsOptions => ({ ca: tls.ca, ...tls.clients[who] });

async function open(options: ZkSessionOptionsInput): Promise<ZkSession> {
  const session = await ZkSession.connect({ sessionTimeoutMs: 4_000, ...options });
  sessions.push(session);
  return session;
}

describe('recipes over TLS', () => {
  it('mutex, read/write lock, semaphore and multi-lock acquire and release', async () => {
    const session = await open({ connectString: tls.connectString, tls: as('alice') });
    const root = `/tls-recipes-${Date.now().toString(36)}`;

    const mutex = await new InterProcessMutex(session, `${root}/mutex`).acquire();
    expect((await session.getChildren(`${root}/mutex`)).children).toHaveLength(1);
    await mutex.release();

    const rw = new InterProcessReadWriteLock(session, `${root}/rw`);
    const write = await rw.writeLock().acquire();
    const read = await rw.readLock().acquire(); // a downgrade: the writer may read
    await write.release();
    await read.release();

    const semaphore = new InterProcessSemaphore(session, `${root}/semaphore`, { maxLeases: 2 });
    const leases = [await semaphore.acquire(), await semaphore.acquire()];
    expect(await semaphore.acquire({ timeoutMs: 200 }).catch((err: unknown) => (err as { code?: string }).code)).toBe('LOCK_TIMEOUT');
    for (const lease of leases) await lease.release();

    const multi = await InterProcessMultiLock.fromPaths(session, [`${root}/m1`, `${root}/m2`]).acquire({ timeoutMs: 5_000 });
    await multi.release();

    for (const dir of ['mutex', 'rw', 'semaphore', 'm1', 'm2']) expect((await session.getChildren(`${root}/${dir}`)).children).toEqual([]);
  });
});

describe('x509 ACLs', () => {
  it("keep bob out of alice's lock, at once, with NO_AUTH", async () => {
    const aliceAcl = [{ scheme: 'x509', id: 'CN=alice', perms: 31 }];
    const alice = await open({ connectString: tls.connectString, tls: as('alice'), acl: aliceAcl });
    const bob = await open({ connectString: tls.connectString, tls: as('bob') });
    const root = `/tls-acl-${Date.now().toString(36)}`;
    const path = `${root}/orders`;
    const held = await new InterProcessMutex(alice, path).acquire();

    const started = performance.now();
    const join = await new InterProcessMutex(bob, path).acquire({ timeoutMs: CONNECTION_TIMEOUT_MS }).catch((err: unknown) => err);
    expect(isZkError(join, 'NO_AUTH'), String(join)).toBe(true);
    expectSoonerThan('the refusal (not the connection timeout)', performance.now() - started, CONNECTION_TIMEOUT_MS / 5);
    await expect(bob.delete(held.path)).rejects.toMatchObject({ code: 'NO_AUTH' });
    await expect(bob.getChildren(path)).rejects.toMatchObject({ code: 'NO_AUTH' });

    // Alice is untouched: still the holder, and the only node.
    expect(held.signal.aborted).toBe(false);
    expect((await alice.getChildren(path)).children).toEqual([held.path.slice(path.length + 1)]);
    await held.release();
  });
});

describe('connect() fails at once, saying why', () => {
  const expectFast = (elapsedMs: number): void => expectSoonerThan('the refusal (not the connection timeout)', elapsedMs, CONNECTION_TIMEOUT_MS / 4);

  it('when the servers are signed by a CA we do not trust', async () => {
    const { error, elapsedMs } = await failedConnect(CONNECTION_TIMEOUT_MS, { connectString: tls.connectString, tls: { ca: tls.untrusted.ca, ...tls.clients.alice } });
    expect(error).toBeInstanceOf(TlsHandshakeError);
    expect(error).toMatchObject({ code: 'TLS_HANDSHAKE', reason: 'untrusted-server-certificate', address: tls.connectString });
    expect((error as Error).cause).toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    expectFast(elapsedMs);
  });

  it('when our client certificate is not one the servers trust, or missing', async () => {
    const untrusted = await failedConnect(CONNECTION_TIMEOUT_MS, { connectString: tls.connectString, tls: { ca: tls.ca, cert: tls.untrusted.cert, key: tls.untrusted.key } });
    expect(untrusted.error).toMatchObject({ code: 'TLS_HANDSHAKE', reason: 'client-certificate-refused' });
    expectFast(untrusted.elapsedMs);
    const anonymous = await failedConnect(CONNECTION_TIMEOUT_MS, { connectString: tls.connectString, tls: { ca: tls.ca } });
    expect(anonymous.error).toMatchObject({ code: 'TLS_HANDSHAKE', reason: 'client-certificate-refused' });
    expectFast(anonymous.elapsedMs);
  });

  it('when a TLS client reaches the plaintext port', async () => {
    const { error, elapsedMs } = await failedConnect(CONNECTION_TIMEOUT_MS, { connectString: server.connectString, tls: as('alice') });
    expect(error).toMatchObject({ code: 'TLS_HANDSHAKE', reason: 'not-a-tls-port', address: server.connectString });
    expectFast(elapsedMs);
  });

  it('but not while another server may still answer: one bad server tried again and again is one server', async () => {
    // A TLS server whose certificate we do not trust: the same failure on every attempt.
    const bad = createTlsServer({ key: tls.untrusted.key, cert: tls.untrusted.cert }, (socket) => socket.destroy());
    let attempts = 0;
    bad.on('connection', () => attempts++);
    await new Promise<void>((resolve) => bad.listen(0, '127.0.0.1', resolve));
    // The good server, behind a relay that drops connections at first, as a server still starting does.
    let starting = true;
    const relayed = new Set<net.Socket>();
    const relay = net.createServer((socket) => {
      if (starting) return socket.destroy();
      relayed.add(socket);
      const upstream = net.connect(tls.ports[0]!, '127.0.0.1');
      socket.pipe(upstream).pipe(socket);
      for (const s of [socket, upstream]) s.on('error', () => (s === socket ? upstream : socket).destroy());
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const port = (server: net.Server): number => (server.address() as net.AddressInfo).port;
    try {
      const connecting = ZkSession.connect({
        connectString: `127.0.0.1:${port(bad)},127.0.0.1:${port(relay)}`,
        tls: as('alice'),
        sessionTimeoutMs: 4_000,
        connectionTimeoutMs: CONNECTION_TIMEOUT_MS,
      });
      await pollUntil(() => attempts >= 3, 5_000, 'the bad server tried three times');
      starting = false;
      const session = await connecting;
      expect(session.isConnected).toBe(true);
      await session.close();
    } finally {
      await new Promise((resolve) => bad.close(resolve));
      for (const socket of relayed) socket.destroy();
      await new Promise((resolve) => relay.close(resolve));
    }
  });

  it('when a plaintext client reaches the TLS port', async () => {
    const { error, elapsedMs } = await failedConnect(CONNECTION_TIMEOUT_MS, { connectString: tls.connectString });
    expect(error).toMatchObject({ code: 'TLS_HANDSHAKE', reason: 'tls-port', address: tls.connectString });
    expectFast(elapsedMs);
  });
});

/** `cons` over TLS: the sessions connected to this server's TLS port. */
function secureCons(port: number, options: TlsOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, ...options });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(new Error(`cons on ${port}: no answer`)), 2_000);
    socket.once('secureConnect', () => socket.write('cons'));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}

describe('failover between TLS servers', () => {
  let cluster: TestingCluster;

  beforeAll(async () => {
    cluster = await TestingCluster.start({ size: 3, forceSync: false, tickTimeMs: 200, maxSessionTimeoutMs: 20_000, tls: true });
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it('moves the session to another server over TLS: the held lock survives and the waiter is granted after', async () => {
    const ctls = cluster.tls!;
    const tlsOf = (who: 'alice' | 'bob'): TlsOptions => ({ ca: ctls.ca, ...ctls.clients[who] });
    const holder = await open({ connectString: ctls.connectString, tls: tlsOf('alice'), sessionTimeoutMs: 10_000 });
    const waiterSession = await open({ connectString: ctls.connectString, tls: tlsOf('bob'), sessionTimeoutMs: 10_000 });
    const path = `/tls-failover-${Date.now().toString(36)}`;
    const held = await new InterProcessMutex(holder, path).acquire();
    const waiting = new InterProcessMutex(waiterSession, path).acquire({ timeoutMs: 60_000 });

    const sid = `sid=0x${holder.sessionId.replace(/^0+/, '')}`;
    const serverOf = async (): Promise<number> => {
      for (const [i, port] of ctls.ports.entries()) {
        if (cluster.servers[i]!.pid === -1) continue;
        if ((await secureCons(port, tlsOf('alice')).catch(() => '')).includes(sid)) return i;
      }
      return -1;
    };
    let before = -1;
    await pollUntil(async () => (before = await serverOf()) >= 0, 5_000, 'the holder on a TLS port');
    const reconnected = new Promise<void>((resolve) => holder.once('reconnected', () => resolve()));
    await cluster.servers[before]!.kill();
    await reconnected;
    let after = -1;
    await pollUntil(async () => (after = await serverOf()) >= 0, 10_000, 'the holder on another TLS port');
    expect(after).not.toBe(before);
    expect(holder.generation).toBe(1);
    expect(held.signal.aborted).toBe(false);

    await held.release();
    const granted = await waiting;
    expect(granted.signal.aborted).toBe(false);
    await granted.release();
    await cluster.servers[before]!.restart();
  }, 120_000);
});
