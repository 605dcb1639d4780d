/**
 * What a first connect that cannot succeed reports, over real sockets: unreachable servers (a port
 * nothing listens on, a host name that does not resolve) fail at once with Node's error as
 * `cause`; a port that accepts and never answers fails at the connection timeout saying so. And
 * what must not change: one refusing server among others does not fail the connect, and an
 * established session rides out its server's restart, refusals included.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { ZkSession } from '../../src/session/index.js';
import { FaultProxy } from '../../../testing/src/FaultProxy.js';
import { freePorts } from '../../../testing/src/ports.js';
import { failedConnect, nextEvent, pollUntil, sharedServer, startServer } from './support.js';
import { expectSoonerThan } from '../support/timeBound.js';

// Bounds for "at once": far below the connection timeout, generous for a loaded 2-core machine.
const CONNECTION_TIMEOUT_MS = 10_000;
const AT_ONCE_MS = 3_000;

let server: ReturnType<typeof sharedServer>;

beforeAll(() => {
  server = sharedServer();
});

/** A loopback port nothing listens on (it was free a moment ago). */
async function unusedPort(): Promise<number> {
  const [port] = await freePorts(1);
  return port!;
}

/** Whether a TCP connection to `127.0.0.1:port` is refused. */
function refuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: Error & { code?: string }) => resolve(err.code === 'ECONNREFUSED'));
  });
}

/** A TCP server that accepts every connection and never sends a byte. */
async function silentServer(): Promise<{ port: number; accepted: () => number; open: () => number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const tcp: Server = createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.resume(); // reads (and ignores) what comes: the connect request, and the client's close
  });
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  const address = tcp.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    accepted: () => accepted,
    open: () => sockets.size,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        tcp.close(() => resolve());
      }),
  };
}

describe('a first connect that cannot succeed', () => {
  it('a port nothing listens on: CONNECTION_LOSS at once, naming the server, cause ECONNREFUSED', async () => {
    const port = await unusedPort();
    const { error, elapsedMs } = await failedConnect(CONNECTION_TIMEOUT_MS, { connectString: `127.0.0.1:${port}` });
    expect(error).toMatchObject({ code: 'CONNECTION_LOSS', op: 'connect', cause: { code: 'ECONNREFUSED' } });
    expect((error as Error).message).toContain(`127.0.0.1:${port} refused the connection`);
    expectSoonerThan('the failed connect (not the connection timeout)', elapsedMs, AT_ONCE_MS);
  });

  it('a host name that does not resolve: CONNECTION_LOSS at once, naming the host, cause ENOTFOUND', async () => {
    const { error, elapsedMs } = await failedConnect(CONNECTION_TIMEOUT_MS, { connectString: 'nonexistent.invalid:2181' });
    expect(error).toMatchObject({ code: 'CONNECTION_LOSS', op: 'connect', cause: { code: 'ENOTFOUND' } });
    expect((error as Error).message).toContain('nonexistent.invalid:2181: the host name does not resolve');
    expectSoonerThan('the failed connect (not the connection timeout)', elapsedMs, AT_ONCE_MS);
  });

  it('every server unreachable, each its own way: at once, the message naming each', async () => {
    const port = await unusedPort();
    const { error, elapsedMs } = await failedConnect(CONNECTION_TIMEOUT_MS, { connectString: `nonexistent.invalid:2181,127.0.0.1:${port}` });
    expect(error).toMatchObject({ code: 'CONNECTION_LOSS', op: 'connect', cause: { code: expect.stringMatching(/^(ENOTFOUND|ECONNREFUSED)$/) } });
    expect((error as Error).message).toContain('nonexistent.invalid:2181: the host name does not resolve (ENOTFOUND)');
    expect((error as Error).message).toContain(`127.0.0.1:${port} refused the connection (ECONNREFUSED`);
    expectSoonerThan('the failed connect (not the connection timeout)', elapsedMs, AT_ONCE_MS);
  });

  it('a port that accepts and never answers: at the connection timeout, saying so; no abort as the cause; nothing left open', async () => {
    const silent = await silentServer();
    try {
      const { error, elapsedMs } = await failedConnect(1_000, { connectString: `127.0.0.1:${silent.port}`, sessionTimeoutMs: 4000 });
      expect(error).toMatchObject({ code: 'CONNECTION_LOSS', op: 'connect' });
      expect((error as Error).message).toBe(
        `could not connect to 127.0.0.1:${silent.port} within 1000 ms: 127.0.0.1:${silent.port} accepted the connection but never answered the ZooKeeper handshake`,
      );
      expect((error as Error).cause).toBeUndefined();
      expect(elapsedMs).toBeGreaterThanOrEqual(900); // it did wait for the timeout (timer granularity aside)
      expect(silent.accepted()).toBeGreaterThanOrEqual(1);
      await pollUntil(() => silent.open() === 0, 5_000, 'the connection closed');
    } finally {
      await silent.close();
    }
  });

  it('one server refuses, another answers once it is reached: connect() succeeds', async () => {
    const port = await unusedPort();
    // The answering server holds everything at first, so the client must go on to the refusing
    // one and come back: two connect requests at the proxy prove the refusal came in between
    // (the wire client takes the servers in turn).
    const proxy = await FaultProxy.start({ targetPort: server.port, targetHost: server.host });
    try {
      void proxy.blackhole();
      const connecting = ZkSession.connect({ connectString: `127.0.0.1:${port},${proxy.connectString}`, sessionTimeoutMs: 3000, connectionTimeoutMs: 20_000 });
      const connectRequests = (): number => proxy.frames.filter((f) => f.direction === 'request' && f.xid === undefined).length;
      await pollUntil(() => connectRequests() >= 2, 15_000, 'a second connection to the answering server');
      proxy.dropConnections();
      proxy.heal();
      const session = await connecting;
      expect(session.state).toBe('connected');
      await session.close();
    } finally {
      await proxy.close();
    }
  });

  it('one server refuses, the other is a real server: connect() succeeds', async () => {
    const port = await unusedPort();
    const session = await ZkSession.connect({ connectString: `127.0.0.1:${port},${server.connectString}`, sessionTimeoutMs: 4000, connectionTimeoutMs: CONNECTION_TIMEOUT_MS });
    expect(session.isConnected).toBe(true);
    await session.close();
  });
});

describe('once a session exists', () => {
  it('survives its server being killed and restarted on the same port: refusals meanwhile do not end it', async () => {
    // A 1 s tick lets the server grant a 20 s session: room for a JVM restart on a loaded machine.
    const own = await startServer({ tickTimeMs: 1000 });
    const session = await ZkSession.connect({ connectString: own.connectString, sessionTimeoutMs: 20_000 });
    try {
      const sid = session.sessionId;
      const ephemeral = await session.create(`/restart-`, null, { mode: 'ephemeral_sequential' });
      let lost = false;
      session.on('lost', () => (lost = true));
      const suspended = nextEvent(session, 'suspended');
      const reconnected = nextEvent(session, 'reconnected', 60_000);
      await own.kill();
      await suspended;
      // The client now reconnects to a port nothing listens on, again and again.
      expect(await refuses(own.port)).toBe(true);
      await own.restart();
      await reconnected;
      expect(lost).toBe(false);
      expect(session.sessionId).toBe(sid);
      expect(session.generation).toBe(1);
      expect((await session.exists(ephemeral.path))?.ephemeralOwner).toBe(session.sessionIdBigInt);
    } finally {
      await session.close();
      await own.stop();
    }
  });
});
