/**
 * Connection states and session loss: server-side expiry, partitions longer than the session
 * timeout, short partitions that keep the session, and what happens to calls, watches and the
 * session signal on `lost`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZkSession } from '../../src/session/index.js';
import { SessionLostError } from '../../src/errors.js';
import type { ConnectionState } from '../../src/session/types.js';
import { FaultProxy } from '../../../testing/src/FaultProxy.js';
import { expireSession, nextEvent, pollUntil, sharedServer, uniqueRoot } from './support.js';
import { sessionInternals } from '../../src/internal.js';
import { expectSoonerThan, expectTimely } from '../support/timeBound.js';
import { readTimeoutMs } from '../../src/session/livenessWatchdog.js';

let server: ReturnType<typeof sharedServer>;
let observer: ZkSession;
const root = uniqueRoot('lifecycle');

beforeAll(async () => {
  server = sharedServer();
  observer = await ZkSession.connect({ connectString: server.connectString, sessionTimeoutMs: 4000 });
  await observer.mkdirp(root);
});

afterAll(async () => {
  await observer?.close();
});

function recordStates(s: ZkSession): ConnectionState[] {
  const states: ConnectionState[] = [];
  s.on('state', (st) => states.push(st));
  return states;
}

describe('session loss', () => {
  it('lost after a server-side expiry: signal aborted, calls and watches dropped, a new session (generation 2)', async () => {
    const s = await ZkSession.connect({ connectString: server.connectString, sessionTimeoutMs: 4000 });
    try {
      const states = recordStates(s);
      const oldSid = s.sessionId;
      const signal = s.sessionSignal;
      const eph = await s.create(`${root}/exp-`, null, { mode: 'ephemeral_sequential' });
      let watchFired = false;
      await s.getData(root, () => (watchFired = true));
      const lost = nextEvent(s, 'lost');
      const connected = nextEvent(s, 'connected');
      await expireSession(server.connectString, sessionInternals(s).credentials);
      const [reason] = await lost;
      expect(reason).toBeInstanceOf(SessionLostError);
      expect(reason.message).toMatch(/expired/);
      expect(signal.aborted).toBe(true);
      expect(signal.reason).toBeInstanceOf(SessionLostError);
      await connected;
      expect(s.generation).toBe(2);
      expect(s.sessionId).not.toBe(oldSid);
      expect(s.sessionSignal).not.toBe(signal);
      expect(s.sessionSignal.aborted).toBe(false);
      expect(states).toEqual(expect.arrayContaining(['lost', 'connected']));
      expect(states.indexOf('lost')).toBeLessThan(states.lastIndexOf('connected'));
      // The server deleted the old session's ephemeral node; the new session works.
      expect(await s.exists(eph.path)).toBeNull();
      const again = await s.create(`${root}/exp-`, null, { mode: 'ephemeral_sequential' });
      expect(again.stat.ephemeralOwner).toBe(s.sessionIdBigInt);
      // Watches of the lost generation are dropped, not delivered later.
      await observer.setData(root, Buffer.from('poke'));
      await s.getData(root); // a round trip on the new session after the change
      expect(watchFired).toBe(false);
      expect(sessionInternals(s).diagnostics.watchKeys).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('lost after a partition longer than the session timeout (the server never says so), then a new session', async () => {
    const proxy = await FaultProxy.start({ targetPort: server.port, targetHost: server.host });
    const s = await ZkSession.connect({ connectString: proxy.connectString, sessionTimeoutMs: 3000 });
    try {
      const states = recordStates(s);
      const timeout = s.negotiatedSessionTimeoutMs;
      const eph = await s.create(`${root}/part-`, null, { mode: 'ephemeral_sequential' });
      const suspended = nextEvent(s, 'suspended');
      const lost = nextEvent(s, 'lost');
      const t0 = performance.now();
      void proxy.blackhole();
      const { lastAnsweredSentAt, marginMs } = sessionInternals(s).livenessClock;
      const inFlight = s.getData(root).catch((e: unknown) => e);
      await suspended;
      // The read timeout, then the watchdog's poll and the event: the order (suspended before
      // lost) is exact below; the time is judged against the machine's load.
      expectTimely('suspended after the partition', performance.now() - t0, { fixedMs: readTimeoutMs(timeout), scaledMs: timeout * 0.9 - readTimeoutMs(timeout) });
      const queuedWhileDown = s.getChildren(root).catch((e: unknown) => e);
      const [reason] = await lost;
      const lostAt = performance.now();
      // From the send time of the last answered request: the margin before the earliest expiry.
      expect(lostAt).toBeGreaterThanOrEqual(lastAnsweredSentAt + timeout - marginMs);
      // The lost timer fires within the margin of its due time on a machine that runs it on time
      // (a time bound: the margin × the machine's slowness).
      expectTimely(`the lost timer past its due time (${marginMs} ms before the earliest expiry)`, lostAt - (lastAnsweredSentAt + timeout - marginMs), marginMs);
      expect(reason.message).toMatch(/no reply from any server/);
      expect(await inFlight).toMatchObject({ code: 'CONNECTION_LOSS' });
      expect(await queuedWhileDown).toBeInstanceOf(SessionLostError);
      // The server expires it on its own clock; ZooKeeper deletes the ephemeral.
      await pollUntil(async () => (await observer.exists(eph.path)) === null, 10_000, 'server-side expiry');
      const connected = nextEvent(s, 'connected');
      proxy.heal();
      await connected;
      expect(s.generation).toBe(2);
      expect(states.slice(0, 3)).toEqual(['suspended', 'lost', 'connected']);
    } finally {
      await s.close();
      await proxy.close();
    }
  });

  it('a short partition keeps the session: suspended, then reconnected with the same session id and watches intact', async () => {
    const proxy = await FaultProxy.start({ targetPort: server.port, targetHost: server.host });
    const s = await ZkSession.connect({ connectString: proxy.connectString, sessionTimeoutMs: 4000 });
    try {
      const sid = s.sessionId;
      const eph = await s.create(`${root}/short-`, null, { mode: 'ephemeral_sequential' });
      const watched = new Promise((resolve) => void s.getData(eph.path, resolve));
      await pollUntil(() => sessionInternals(s).diagnostics.watchKeys === 1, 5000);
      const suspended = nextEvent(s, 'suspended');
      const reconnected = nextEvent(s, 'reconnected');
      void proxy.blackhole();
      await suspended;
      // Meanwhile the node changes; the wire client re-registers the watch on reconnect
      // (SET_WATCHES with the last zxid), so the change is still delivered.
      await observer.setData(eph.path, Buffer.from('changed'));
      proxy.heal();
      await reconnected;
      expect(s.sessionId).toBe(sid);
      expect(s.generation).toBe(1);
      expect(await watched).toEqual({ type: 'dataChanged', path: eph.path });
      expect((await observer.exists(eph.path))?.ephemeralOwner).toBe(s.sessionIdBigInt);
    } finally {
      await s.close();
      await proxy.close();
    }
  });

  it('a stall of our own event loop is not mistaken for a silent server (bytes read before the watchdog acts)', async () => {
    // A long session: after the stall, the round trips that follow have until the lost deadline
    // (a tenth of the session before it ends) to be answered, 3.6 s here; with 6 s sessions a busy
    // machine took longer than the 0.9 s left and the session was rightly declared lost.
    const s = await ZkSession.connect({ connectString: server.connectString, sessionTimeoutMs: 20_000 });
    try {
      const timeout = s.negotiatedSessionTimeoutMs;
      const states: string[] = [];
      s.on('state', (st) => states.push(st));
      const reply = s.getData(root);
      // Let the request leave first: writes are corked until setImmediate (writeBatching.ts), and a
      // request still corked during the stall would leave only after it, with no reply in time.
      await new Promise((resolve) => setImmediate(resolve));
      // Block for longer than the read timeout (2/3) but less than the session timeout: the reply
      // arrives meanwhile and waits in the socket while our timers are already overdue. The thread
      // sleeps (Atomics.wait): the event loop is stopped as by a busy loop, without taking a core.
      const end = performance.now() + Math.floor(timeout * 0.72);
      for (let left = end - performance.now(); left > 0; left = end - performance.now()) {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, left);
      }
      await reply;
      // Two more round trips spanning several watchdog ticks.
      await s.exists(root);
      await new Promise((r) => setTimeout(r, 300));
      await s.exists(root);
      expect(states).toEqual([]);
      expect(s.state).toBe('connected');
    } finally {
      await s.close();
    }
  });

  it('dropped connections: suspended then reconnected, calls issued meanwhile complete', async () => {
    const proxy = await FaultProxy.start({ targetPort: server.port, targetHost: server.host });
    const s = await ZkSession.connect({ connectString: proxy.connectString, sessionTimeoutMs: 4000 });
    try {
      const suspended = nextEvent(s, 'suspended');
      const reconnected = nextEvent(s, 'reconnected');
      proxy.dropConnections();
      await suspended;
      const during = s.exists(root);
      await reconnected;
      expect(await during).not.toBeNull();
      expect(s.state).toBe('reconnected');
    } finally {
      await s.close();
      await proxy.close();
    }
  });

  it('a burst of 2,000 pipelined calls across a dropped connection: every call settles, none twice', async () => {
    const proxy = await FaultProxy.start({ targetPort: server.port, targetHost: server.host });
    const s = await ZkSession.connect({ connectString: proxy.connectString, sessionTimeoutMs: 4000 });
    try {
      const dir = `${root}/burst`;
      await s.mkdirp(dir);
      const reconnected = nextEvent(s, 'reconnected');
      let settledTwice = false;
      const calls = Array.from({ length: 2000 }, (_, i) => {
        let settled = 0;
        const p = i % 2 === 0 ? s.create(`${dir}/n-`, null, { mode: 'ephemeral_sequential' }) : s.exists(dir);
        return p.then(
          () => {
            if (++settled > 1) settledTwice = true;
            return 'ok';
          },
          (e: { code?: string }) => {
            if (++settled > 1) settledTwice = true;
            return e.code ?? 'other';
          },
        );
      });
      // Drop the connection while replies are still streaming back.
      await pollUntil(() => proxy.frames.filter((f) => f.direction === 'reply').length > 20, 10_000, 'replies streaming');
      proxy.dropConnections();
      const outcomes = await Promise.all(calls);
      await reconnected;
      expect(settledTwice).toBe(false);
      expect(outcomes.filter((o) => o !== 'ok' && o !== 'CONNECTION_LOSS')).toEqual([]);
      expect(sessionInternals(s).diagnostics.pendingCalls).toBe(0);
      expect(await s.exists(dir)).not.toBeNull();
    } finally {
      await s.close();
      await proxy.close();
    }
  });

  it('a server that accepts TCP but never answers the connect request is abandoned after the connect timeout', async () => {
    const proxy = await FaultProxy.start({ targetPort: server.port, targetHost: server.host });
    try {
      void proxy.blackhole();
      const calledAt = performance.now();
      const connecting = ZkSession.connect({ connectString: proxy.connectString, sessionTimeoutMs: 3000, connectionTimeoutMs: 20_000 });
      const connectRequests = (): Array<{ connection: number; at: number }> =>
        proxy.frames.filter((f) => f.direction === 'request' && f.xid === undefined);
      // The wire client alone would wait on the first connection forever; the watchdog gives up on
      // it after the connect timeout (1/3 of the session timeout here) and tries again.
      await pollUntil(() => connectRequests().length >= 2, 10_000, 'a second connection attempt');
      const [first, second] = connectRequests();
      expect(second!.connection).not.toBe(first!.connection);
      // The connect timeout counts from the first socket, opened after the call (not from when the
      // proxy read the first request, which a busy machine can delay): exact, timer granularity aside.
      expect(second!.at - calledAt).toBeGreaterThanOrEqual(995);
      expectSoonerThan('the second connection attempt after the first (the connect timeout, a third of the session)', second!.at - first!.at, 3000);
      proxy.dropConnections();
      proxy.heal();
      const s = await connecting;
      expect(s.state).toBe('connected');
      await s.close();
    } finally {
      await proxy.close();
    }
  });

  it('waitForConnected resolves at once when connected, after reconnection otherwise, and honours abort', async () => {
    const proxy = await FaultProxy.start({ targetPort: server.port, targetHost: server.host });
    const s = await ZkSession.connect({ connectString: proxy.connectString, sessionTimeoutMs: 4000 });
    try {
      await s.waitForConnected();
      const suspended = nextEvent(s, 'suspended');
      proxy.refuseConnections();
      proxy.dropConnections();
      await suspended;
      const ac = new AbortController();
      const aborted = s.waitForConnected(ac.signal);
      ac.abort(new Error('give up'));
      await expect(aborted).rejects.toThrow('give up');
      const back = s.waitForConnected();
      proxy.refuseConnections(false);
      await back;
      expect(s.state).toBe('reconnected');
    } finally {
      await s.close();
      await proxy.close();
    }
  });

  it('a create whose reply is lost (cutAfterNextRequest): the call fails CONNECTION_LOSS but the node exists, owned by us', async () => {
    const proxy = await FaultProxy.start({ targetPort: server.port, targetHost: server.host });
    const s = await ZkSession.connect({ connectString: proxy.connectString, sessionTimeoutMs: 4000 });
    try {
      const cut = proxy.cutAfterNextRequest(15);
      const reconnected = nextEvent(s, 'reconnected');
      const err = await s.create(`${root}/lost-reply-`, null, { mode: 'ephemeral_sequential' }).catch((e: unknown) => e);
      await cut;
      expect(err).toMatchObject({ code: 'CONNECTION_LOSS' });
      await reconnected;
      const { children } = await s.getChildren(root);
      const mine = children.filter((c) => c.startsWith('lost-reply-'));
      expect(mine).toHaveLength(1);
      expect((await s.exists(`${root}/${mine[0]}`))?.ephemeralOwner).toBe(s.sessionIdBigInt);
    } finally {
      await s.close();
      await proxy.close();
    }
  });
});
