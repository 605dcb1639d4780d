/**
 * What a session does with the inputs people get wrong: each is refused
 * at once with INVALID_ARGUMENT and a message saying why, and nothing reaches the wire that could
 * disturb the session (a server closes the connection of a client that sends more than its
 * jute.maxbuffer, and the wire client would send it again after every reconnection).
 */
import { createHash } from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedExponentialBackoff, exponentialBackoff, retryForever, retryNTimes, retryOneTime, retryUntilElapsed } from '../../src/retry/index.js';
import { ZkSession } from '../../src/session/index.js';
import type { ConnectionState } from '../../src/session/types.js';
import { FaultProxy } from '@zk-recipes/testing';
import { pollUntil, sharedServer, uniqueRoot } from './support.js';
import { expectSoonerThan } from '../support/timeBound.js';

let server: ReturnType<typeof sharedServer>;
let session: ZkSession;
const states: ConnectionState[] = [];
const root = uniqueRoot('misuse');

beforeAll(async () => {
  server = sharedServer();
  session = await ZkSession.connect({ connectString: server.connectString, sessionTimeoutMs: 4000 });
  session.on('state', (state) => states.push(state));
  await session.mkdirp(root);
});

afterAll(async () => {
  await session?.close();
});

/** A TCP server that answers every connection as an HTTP server would: not ZooKeeper's protocol. */
async function notZooKeeper(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const http = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    port: (http.address() as net.AddressInfo).port,
    connections: () => connections,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

const refusal = (message: RegExp) => expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(message) });

describe('ZkSession: misuse is refused at once', () => {
  it.each([
    ['a session timeout no timer can hold (2^31 ms)', { sessionTimeoutMs: 2 ** 31 }, /sessionTimeoutMs must be at most 2147483647/],
    ['a connection timeout no timer can hold (3e9 ms)', { connectionTimeoutMs: 3e9 }, /connectionTimeoutMs must be at most 2147483647/],
    ['a misspelt option (sessionTimeout)', { sessionTimeout: 500 }, /Unrecognized key.*sessionTimeout/],
    ['a connect string that is not host:port', { connectString: 'localhost' }, /connectString must be host:port/],
    ['a malformed chroot (/a//b)', { connectString: '127.0.0.1:2181/a//b' }, /connectString: chroot must not contain an empty segment \("\/\/"\): "\/a\/\/b"/],
    ['a chroot with a relative segment (/a/../b)', { connectString: '127.0.0.1:2181/a/../b' }, /chroot must not contain a relative segment/],
  ])('connect() with %s rejects with INVALID_ARGUMENT', async (_what, options, message) => {
    await expect(ZkSession.connect({ connectString: server.connectString, ...options } as never)).rejects.toEqual(refusal(message));
  });

  // Built before connect(): the policy factories throw at once, like constructors.
  it.each([
    ['retryNTimes', () => retryNTimes({ n: 3, sleepMs: 3e9 }), /sleepMs must be at most 2147483647 ms/],
    ['retryOneTime', () => retryOneTime({ sleepMs: 3e9 }), /sleepMs must be at most 2147483647 ms/],
    ['retryForever', () => retryForever({ sleepMs: 3e9 }), /sleepMs must be at most 2147483647 ms/],
    ['retryUntilElapsed', () => retryUntilElapsed({ maxElapsedMs: 60_000, sleepMs: 3e9 }), /sleepMs must be at most 2147483647 ms/],
    ['exponentialBackoff (baseSleepMs)', () => exponentialBackoff({ baseSleepMs: 3e9, maxRetries: 3 }), /baseSleepMs must be at most 2147483647 ms/],
    ['exponentialBackoff (maxSleepMs)', () => exponentialBackoff({ baseSleepMs: 100, maxRetries: 3, maxSleepMs: 3e9 }), /maxSleepMs must be at most 2147483647 ms/],
    ['boundedExponentialBackoff (baseSleepMs)', () => boundedExponentialBackoff({ baseSleepMs: 3e9, maxSleepMs: 3e9, maxRetries: 3 }), /baseSleepMs must be at most 2147483647 ms/],
    ['boundedExponentialBackoff (maxSleepMs)', () => boundedExponentialBackoff({ baseSleepMs: 100, maxSleepMs: 3e9, maxRetries: 3 }), /maxSleepMs must be at most 2147483647 ms/],
  ])('a retry policy sleeping longer than a timer can (%s, 3e9 ms) throws INVALID_ARGUMENT', (_what, make, message) => {
    let thrown: unknown;
    try {
      make();
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toEqual(refusal(message));
  });

  it('a chroot that does not exist yet is created on connect (with its ancestors), and the session works inside it', async () => {
    const chroot = `${root}/app-${Date.now()}/tenant`;
    const inside = await ZkSession.connect({ connectString: `${server.connectString}${chroot}`, sessionTimeoutMs: 4000 });
    try {
      expect(await session.exists(chroot)).not.toBeNull();
      await inside.mkdirp('/locks');
      expect(await session.exists(`${chroot}/locks`)).not.toBeNull();
    } finally {
      await inside.close();
    }
    // Connecting again to the same chroot: it exists, which is fine.
    const again = await ZkSession.connect({ connectString: `${server.connectString}${chroot}`, sessionTimeoutMs: 4000 });
    await again.close();
  });

  it("the chroot and the ancestors connect() creates get the session's ACL, not the open default", async () => {
    const base = `${root}/acl-${Date.now()}`;
    const acl = [
      { perms: 31, scheme: 'digest', id: `owner:${createHash('sha1').update('owner:pw').digest('base64')}` },
      { perms: 1, scheme: 'world', id: 'anyone' },
    ];
    const inside = await ZkSession.connect({
      connectString: `${server.connectString}${base}/app/tenant`,
      sessionTimeoutMs: 4000,
      auth: [{ scheme: 'digest', credentials: 'owner:pw' }],
      acl,
    });
    // Read by the owner: a session without ADMIN is shown digest ids as `owner:x`.
    const owner = await ZkSession.connect({ connectString: server.connectString, sessionTimeoutMs: 4000, auth: [{ scheme: 'digest', credentials: 'owner:pw' }] });
    try {
      for (const path of [base, `${base}/app`, `${base}/app/tenant`]) expect((await owner.getACL(path)).acl).toEqual(acl);
    } finally {
      await owner.close();
      await inside.close();
    }
  });

  it('a port that is not ZooKeeper: connect() fails at once with one clear error, not a reconnect loop', async () => {
    const http = await notZooKeeper();
    try {
      const started = performance.now();
      await expect(ZkSession.connect({ connectString: `127.0.0.1:${http.port}`, connectionTimeoutMs: 10_000 })).rejects.toEqual(
        refusal(/not ZooKeeper's protocol \(is this a ZooKeeper client port\?\)/),
      );
      expectSoonerThan('the refusal (not the 10 s connection timeout)', performance.now() - started, 5_000);
      expect(http.connections()).toBeLessThanOrEqual(2);
    } finally {
      await http.close();
    }
  });

  it('a wrong port among good servers does not fail connect(): the client moves on to the next', async () => {
    const http = await notZooKeeper();
    try {
      const mixed = await ZkSession.connect({ connectString: `127.0.0.1:${http.port},${server.connectString}`, sessionTimeoutMs: 4000 });
      expect(mixed.isConnected).toBe(true);
      await mixed.close();
    } finally {
      await http.close();
    }
  });

  it('one wrong port hit again and again does not fail connect() while the other server is not answering yet', async () => {
    const http = await notZooKeeper();
    // The good server refuses connections at first, as one still starting would.
    const late = await FaultProxy.start({ targetPort: server.port, targetHost: server.host });
    late.refuseConnections(true);
    try {
      const started = performance.now();
      const connecting = ZkSession.connect({ connectString: `127.0.0.1:${http.port},${late.connectString}`, sessionTimeoutMs: 4000, connectionTimeoutMs: 10_000 });
      // Until the wrong port has been tried several times: counting errors instead of servers failed here.
      await pollUntil(() => http.connections() >= 3, 5_000);
      late.refuseConnections(false);
      const session = await connecting;
      expect(session.isConnected).toBe(true);
      expectSoonerThan('the connect past the wrong port', performance.now() - started, 10_000);
      await session.close();
    } finally {
      await late.close();
      await http.close();
    }
  });

  it('a chroot that exists under a parent we may not create in: connect() does not try to create it', async () => {
    const admin = await ZkSession.connect({ connectString: server.connectString, sessionTimeoutMs: 4000, auth: [{ scheme: 'digest', credentials: 'admin:secret' }] });
    try {
      const parent = `${root}/guarded-${Date.now()}`;
      // Only the admin may create children here; anyone may read.
      await admin.create(parent, null, { acl: [{ perms: 31, scheme: 'auth', id: '' }, { perms: 1, scheme: 'world', id: 'anyone' }] });
      await admin.create(`${parent}/tenant`, null, { acl: [{ perms: 31, scheme: 'world', id: 'anyone' }] });
      const tenant = await ZkSession.connect({ connectString: `${server.connectString}${parent}/tenant`, sessionTimeoutMs: 4000 });
      try {
        await tenant.create('/lock-dir', null);
        expect(await admin.exists(`${parent}/tenant/lock-dir`)).not.toBeNull();
      } finally {
        await tenant.close();
      }
    } finally {
      await admin.close();
    }
  });

  it('a connect string with spaces around its parts connects', async () => {
    const [hostPort] = server.connectString.split(',');
    const spaced = await ZkSession.connect({ connectString: ` ${hostPort} , ${hostPort} `, sessionTimeoutMs: 4000 });
    try {
      expect(spaced.isConnected).toBe(true);
    } finally {
      await spaced.close();
    }
  });

  it.each([
    ['node data over the servers\' limit (2 MB)', () => session.create(`${root}/big-data`, Buffer.alloc(2 * 1024 * 1024))],
    ['a path over the servers\' limit (1.1 MB)', () => session.create(`${root}/${'p'.repeat(1_100_000)}`)],
    ['a write of data over the limit', () => session.setData(root, Buffer.alloc(1_048_576))],
  ])('%s: rejected before it is sent; the session is not disturbed', async (_what, send) => {
    const before = states.length;
    await expect(send()).rejects.toEqual(refusal(/over the servers' limit of 1048575 \(jute.maxbuffer/));
    expect(await session.exists(root)).not.toBeNull(); // the next request is answered at once
    expect(states.slice(before)).toEqual([]); // no suspension, no reconnection
  });

  it('maxRequestBytes follows a server configured with a larger jute.maxbuffer', async () => {
    const roomy = await ZkSession.connect({ connectString: server.connectString, sessionTimeoutMs: 4000, maxRequestBytes: 4 * 1024 * 1024 });
    try {
      // The option states what the servers accept: the check follows it.
      await expect(roomy.create(`${root}/under-ours`, Buffer.alloc(2 * 1024))).resolves.toMatchObject({ path: `${root}/under-ours` });
      await expect(roomy.create(`${root}/over-ours`, Buffer.alloc(5 * 1024 * 1024))).rejects.toEqual(refusal(/over the servers' limit of 4194304/));
    } finally {
      await roomy.close();
    }
  });
});
