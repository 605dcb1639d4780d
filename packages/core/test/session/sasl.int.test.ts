/**
 * SASL DIGEST-MD5 against a real server with a JAAS `Server` section (docs/security.md): recipes
 * whose nodes carry a `sasl:alice` ACL, another user refused at once, wrong credentials failing
 * `connect()` at once, and the exchange run again on every connection (a cut connection, and a
 * failover in a 3-server ensemble).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthFailedError, ZkSession, isZkError, type AclEntry, type SaslOptions, type ZkSessionOptionsInput } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { InterProcessSemaphore } from '@zk-recipes/semaphore';
import { FaultProxy, TestingCluster, TestingServer, testConnectString } from '@zk-recipes/testing';
import { OP_SASL } from '../../src/session/sasl/saslPacket.js';
import { failedConnect, serverOfSession } from './support.js';
import { expectSoonerThan } from '../support/timeBound.js';

/** The timeout the fail-fast tests must beat by far. */
const CONNECTION_TIMEOUT_MS = 10_000;
const ALICE: SaslOptions = { mechanism: 'DIGEST-MD5', username: 'alice', password: 'pw-a' };
const BOB: SaslOptions = { mechanism: 'DIGEST-MD5', username: 'bob', password: 'pw-b' };
/** Everything for alice, nothing for anyone else (not even reading). */
const ALICE_ONLY: AclEntry[] = [{ scheme: 'sasl', id: 'alice', perms: 31 }];

let server: TestingServer;
const sessions: ZkSession[] = [];
const root = `/sasl-${Date.now().toString(36)}`;

beforeAll(async () => {
  server = await TestingServer.start({ forceSync: false, tickTimeMs: 200, minSessionTimeoutMs: 400, sasl: { users: { alice: 'pw-a', bob: 'pw-b' } } });
}, 60_000);

afterAll(async () => {
  await Promise.all(sessions.map((s) => s.close()));
  await server?.stop();
});

async function open(options: Omit<ZkSessionOptionsInput, 'connectString'> & { connectString?: string }): Promise<ZkSession> {
  const session = await ZkSession.connect({ connectString: server.connectString, sessionTimeoutMs: 4_000, ...options });
  sessions.push(session);
  return session;
}

/** How a promise ends (its error, or 'resolved'), and how long it took. */
async function outcome(p: Promise<unknown>): Promise<{ error: unknown; elapsedMs: number }> {
  const started = performance.now();
  const error = await p.then(
    () => 'resolved',
    (err: unknown) => err,
  );
  return { error, elapsedMs: performance.now() - started };
}

describe('recipes with sasl:alice ACLs', () => {
  it('alice takes and releases a mutex, a read/write lock and a semaphore; their nodes are hers alone', async () => {
    const alice = await open({ sasl: ALICE, acl: ALICE_ONLY });
    const anonymous = await open({});

    const mutex = await new InterProcessMutex(alice, `${root}/recipes/mutex`).acquire();
    // Nobody else may even list the lock directory: the ACL protects it.
    await expect(anonymous.getChildren(`${root}/recipes/mutex`)).rejects.toMatchObject({ code: 'NO_AUTH' });
    expect((await alice.getChildren(`${root}/recipes/mutex`)).children).toEqual([mutex.path.split('/').pop()]);
    await mutex.release();

    const rw = new InterProcessReadWriteLock(alice, `${root}/recipes/rw`);
    const write = await rw.writeLock().acquire();
    const read = await rw.readLock().acquire();
    await read.release();
    await write.release();

    const semaphore = new InterProcessSemaphore(alice, `${root}/recipes/semaphore`, { maxLeases: 2 });
    const leases = await semaphore.acquireMany(2);
    for (const lease of leases) await lease.release();
    expect((await alice.getChildren(`${root}/recipes/semaphore`)).children).toEqual([]);
  });

  it('bob is refused with NO_AUTH at once: joining any of the locks, or deleting alice’s node', async () => {
    const alice = await open({ sasl: ALICE, acl: ALICE_ONLY });
    const bob = await open({ sasl: BOB });
    const held = await new InterProcessMutex(alice, `${root}/refused/mutex`).acquire();
    const rw = await new InterProcessReadWriteLock(alice, `${root}/refused/rw`).writeLock().acquire();
    const lease = await new InterProcessSemaphore(alice, `${root}/refused/semaphore`, { maxLeases: 1 }).acquire();

    const attempts = [
      new InterProcessMutex(bob, `${root}/refused/mutex`).acquire({ timeoutMs: CONNECTION_TIMEOUT_MS }),
      new InterProcessReadWriteLock(bob, `${root}/refused/rw`).readLock().acquire({ timeoutMs: CONNECTION_TIMEOUT_MS }),
      new InterProcessSemaphore(bob, `${root}/refused/semaphore`, { maxLeases: 1 }).acquire({ timeoutMs: CONNECTION_TIMEOUT_MS }),
      bob.delete(held.path),
    ];
    for (const { error, elapsedMs } of await Promise.all(attempts.map(outcome))) {
      expect(isZkError(error, 'NO_AUTH'), String(error)).toBe(true);
      expectSoonerThan('the refusal (not the connection timeout)', elapsedMs, CONNECTION_TIMEOUT_MS / 4);
    }
    // Alice still holds all three, and bob left nothing behind.
    expect(held.signal.aborted).toBe(false);
    expect((await alice.getChildren(`${root}/refused/mutex`)).children).toEqual([held.path.split('/').pop()]);
    await Promise.all([held.release(), rw.release(), lease.release()]);
  });
});

describe('credentials the server refuses', () => {
  it.each([
    ['a wrong password', { ...ALICE, password: 'not-pw-a' }],
    // A password that is nobody's: ZooKeeper 3.8 checks an unknown name against the password of
    // the user who authenticated last on that server (docs/security.md).
    ['an unknown user', { mechanism: 'DIGEST-MD5', username: 'mallory', password: 'pw-m' } as const],
  ])('%s fails connect() at once with AUTH_FAILED, naming the user and never the password', async (_what, sasl) => {
    const { error, elapsedMs } = await failedConnect(CONNECTION_TIMEOUT_MS, { connectString: server.connectString, sasl });
    expect(error).toBeInstanceOf(AuthFailedError);
    expect(error).toMatchObject({ code: 'AUTH_FAILED', mechanism: 'DIGEST-MD5', username: sasl.username, zkCode: -115 });
    expect((error as Error).message).toContain(`'${sasl.username}'`);
    expect((error as Error).message).not.toContain(sasl.password);
    expectSoonerThan('the refusal (not the connection timeout)', elapsedMs, CONNECTION_TIMEOUT_MS / 4);
  });

  it('a server without SASL fails connect() at once too', async () => {
    const { error, elapsedMs } = await failedConnect(CONNECTION_TIMEOUT_MS, { connectString: testConnectString(), sasl: ALICE });
    expect(error).toBeInstanceOf(AuthFailedError);
    expect((error as Error).message).toMatch(/offers no SASL/);
    expectSoonerThan('the refusal (not the connection timeout)', elapsedMs, CONNECTION_TIMEOUT_MS / 4);
  });

  it('digest credentials the server refuses fail connect() at once with the same AuthFailedError', async () => {
    // With the digest provider off, a server answers every digest `auth` packet AUTH_FAILED.
    const noDigest = await TestingServer.start({ forceSync: false, systemProperties: { 'zookeeper.DigestAuthenticationProvider.enabled': 'false' } });
    try {
      const { error, elapsedMs } = await failedConnect(CONNECTION_TIMEOUT_MS, { connectString: noDigest.connectString, auth: [{ scheme: 'digest', credentials: 'orders:s3cret' }] });
      expect(error).toBeInstanceOf(AuthFailedError);
      expect(error).toMatchObject({ code: 'AUTH_FAILED', mechanism: 'digest', username: 'orders', zkCode: -115, op: 'connect' });
      expect((error as Error).message).toContain("'orders'");
      expect((error as Error).message).not.toContain('s3cret');
      expectSoonerThan('the refusal (not the connection timeout)', elapsedMs, CONNECTION_TIMEOUT_MS / 4);
    } finally {
      await noDigest.stop();
    }
  }, 60_000);

  it('the option is checked: a misspelt field or another mechanism is refused before connecting', async () => {
    await expect(ZkSession.connect({ connectString: server.connectString, sasl: { ...ALICE, user: 'alice' } as never })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    const gssapi = await ZkSession.connect({ connectString: server.connectString, sasl: { ...ALICE, mechanism: 'GSSAPI' } as never }).catch((e: unknown) => e);
    expect(gssapi).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect((gssapi as Error).message).toMatch(/GSSAPI is not supported/);
  });
});

describe('SASL over TLS (the setup docs/security.md recommends)', () => {
  it('a session with both tls and sasl takes a lock under a sasl ACL; without the password, or without the certificate, it cannot', async () => {
    const secure = await TestingServer.start({ forceSync: false, tls: true, sasl: { users: { alice: 'pw-a', bob: 'pw-b' } } });
    const onThisServer: ZkSession[] = [];
    const open = async (options: ZkSessionOptionsInput): Promise<ZkSession> => {
      const session = await ZkSession.connect({ sessionTimeoutMs: 4_000, ...options });
      onThisServer.push(session);
      return session;
    };
    try {
      const tls = secure.tls!;
      const alice = await open({ connectString: tls.connectString, tls: { ca: tls.ca, ...tls.clients.alice }, sasl: ALICE, acl: ALICE_ONLY });
      const held = await new InterProcessMutex(alice, `${root}/over-tls/mutex`).acquire();
      expect((await alice.getACL(`${root}/over-tls/mutex`)).acl).toEqual(ALICE_ONLY);
      // bob has a certificate the servers trust, but the ACL names alice's SASL user only.
      const bob = await open({ connectString: tls.connectString, tls: { ca: tls.ca, ...tls.clients.bob }, sasl: BOB });
      await expect(new InterProcessMutex(bob, `${root}/over-tls/mutex`).acquire({ timeoutMs: 4_000 })).rejects.toMatchObject({ code: 'NO_AUTH' });
      await held.release();

      const wrongPassword = await failedConnect(CONNECTION_TIMEOUT_MS, { connectString: tls.connectString, tls: { ca: tls.ca, ...tls.clients.alice }, sasl: { ...ALICE, password: 'not-pw-a' } });
      expect(wrongPassword.error).toMatchObject({ code: 'AUTH_FAILED', username: 'alice' });
      expectSoonerThan('the refusal (not the connection timeout)', wrongPassword.elapsedMs, CONNECTION_TIMEOUT_MS / 4);
      const noCertificate = await failedConnect(CONNECTION_TIMEOUT_MS, { connectString: tls.connectString, tls: { ca: tls.ca }, sasl: ALICE });
      expect(noCertificate.error).toMatchObject({ code: 'TLS_HANDSHAKE', reason: 'client-certificate-refused' });
    } finally {
      await Promise.all(onThisServer.map((session) => session.close()));
      await secure.stop();
    }
  }, 60_000);
});

describe('every connection authenticates', () => {
  it('after a dropped connection the session authenticates again before anything else, and keeps its lock', async () => {
    const proxy = await FaultProxy.start({ targetPort: server.port });
    try {
      const alice = await open({ connectString: proxy.connectString, sasl: ALICE, acl: ALICE_ONLY });
      const held = await new InterProcessMutex(alice, `${root}/reconnect/mutex`).acquire();
      const firstConnection = proxy.frames.at(-1)!.connection;

      const reconnected = new Promise<void>((resolve) => alice.once('reconnected', resolve));
      proxy.dropConnections();
      await reconnected;
      expect(held.signal.aborted).toBe(false);

      // The new connection: the connect request, the two SASL requests, then the session's own.
      const next = await new InterProcessMutex(alice, `${root}/reconnect/other`).acquire();
      await next.release();
      await held.release();
      const requests = proxy.frames.filter((f) => f.direction === 'request' && f.connection > firstConnection && (f.xid ?? 0) >= 0).map((f) => f.type);
      expect(requests.slice(0, 3)).toEqual([undefined, OP_SASL, OP_SASL]);
      expect(requests.slice(3)).not.toContain(OP_SASL);
      expect(requests.length).toBeGreaterThan(3);
      expect((await alice.getChildren(`${root}/reconnect/mutex`)).children).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it('failover in a SASL ensemble: the session authenticates with the next server and keeps its lock; bob stays out', async () => {
    // tickTime 500: sessions up to 10 s, room for the move (as cluster.int.test.ts).
    const cluster = await TestingCluster.start({ size: 3, forceSync: false, tickTimeMs: 500, sasl: { users: { alice: 'pw-a', bob: 'pw-b' } } });
    const inCluster: ZkSession[] = [];
    try {
      const options = { connectString: cluster.connectString, sessionTimeoutMs: 9_000, connectionTimeoutMs: 30_000 };
      const alice = await open({ ...options, sasl: ALICE, acl: ALICE_ONLY });
      const bob = await open({ ...options, sasl: BOB });
      inCluster.push(alice, bob);
      const held = await new InterProcessMutex(alice, `${root}/failover/mutex`).acquire();
      const victim = await serverOfSession(cluster.servers, alice.sessionId);
      expect(victim).toBeGreaterThanOrEqual(0);

      const reconnected = new Promise<void>((resolve) => alice.once('reconnected', resolve));
      await cluster.servers[victim]!.kill();
      await reconnected;
      expect(await serverOfSession(cluster.servers.filter((_, i) => i !== victim), alice.sessionId)).toBeGreaterThanOrEqual(0);
      expect(held.signal.aborted).toBe(false);
      await expect(new InterProcessMutex(bob, `${root}/failover/mutex`).acquire({ timeoutMs: 9_000 })).rejects.toMatchObject({ code: 'NO_AUTH' });
      await held.release();
      await (await new InterProcessMutex(alice, `${root}/failover/mutex`).acquire()).release();
    } finally {
      await Promise.all(inCluster.map((session) => session.close()));
      await cluster.stop();
    }
  }, 120_000);
});
