/**
 * The session clock against a real server: it runs from the send time of the last request the
 * server answered, so bytes read late (after a stall of this process) do not revive a session the
 * server may have expired; a session we declare lost on a live connection is closed at once; and
 * a session that only receives (a stream of watch events) still pings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSoonerThan } from '../support/timeBound.js';
import { ZkSession } from '../../src/session/index.js';
import { SessionLostError } from '../../src/errors.js';
import { FaultProxy } from '../../../testing/src/FaultProxy.js';
import { nextEvent, pollUntil, sharedServer, uniqueRoot } from './support.js';
import { sessionInternals } from '../../src/internal.js';

let observer: ZkSession;
const root = uniqueRoot('liveness');
const connectString = (): string => sharedServer().connectString;

beforeAll(async () => {
  observer = await ZkSession.connect({ connectString: connectString(), sessionTimeoutMs: 6000 });
  await observer.mkdirp(root);
});

afterAll(async () => {
  await observer?.close();
});

/** Blocks this process's event loop until `until` (performance.now()): the stall IS the scenario. */
function stallUntil(until: number): void {
  while (performance.now() < until) {
    // busy
  }
}

/** Lets the writes issued so far leave (they are corked until setImmediate, see writeBatching.ts). */
const flushWrites = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('the session clock', () => {
  it('a stall past the deadline: stillAlive() is false although a reply arrives after it, and the server did expire the session', async () => {
    const s = await ZkSession.connect({ connectString: connectString(), sessionTimeoutMs: 2000 });
    try {
      const timeout = s.negotiatedSessionTimeoutMs;
      const eph = await s.create(`${root}/stall-`, null, { mode: 'ephemeral_sequential' });
      const lost = nextEvent(s, 'lost');
      // The next session may connect before the old one's node is seen gone: listen from the start.
      const connected = nextEvent(s, 'connected');
      const signal = s.sessionSignal;
      // A request leaves just before the stall; its reply waits in the socket during it.
      const reply = s.getData(root).then(
        () => 'resolved',
        (e: unknown) => e,
      );
      await flushWrites();
      const sentBefore = performance.now();
      // Past our deadline and past the server's expiry (2 ticks of 200 ms of rounding).
      stallUntil(sentBefore + timeout + 600);
      // The reply is read after the stall (these are bytes received, and even an answer)...
      expect(await reply).toBe('resolved');
      // ...but to a request sent before the stall: it proves nothing about the time since.
      expect(sessionInternals(s).livenessClock.lastAnsweredSentAt).toBeLessThanOrEqual(sentBefore);
      expect(s.stillAlive()).toBe(false);
      expect(signal.aborted).toBe(true);
      const [reason] = await lost;
      expect(reason).toBeInstanceOf(SessionLostError);
      expect(reason.message).toMatch(/no reply from any server/);
      // The server did expire it: its ephemeral node goes.
      await pollUntil(async () => (await observer.exists(eph.path)) === null, 10_000, 'server-side expiry');
      // The next generation is alive; a seat of the lost one is not.
      await connected;
      expect(s.generation).toBe(2);
      expect(s.stillAlive()).toBe(true);
      expect(s.stillAlive(2)).toBe(true);
      expect(s.stillAlive(1)).toBe(false);
    } finally {
      await s.close();
    }
    expect(s.stillAlive()).toBe(false);
  });

  it('a stall between our deadline and the server expiry: stillAlive() declares lost and CLOSE_SESSION ends the session at once; nothing else of it is written', async () => {
    const server = sharedServer();
    const proxy = await FaultProxy.start({ targetPort: server.port, targetHost: server.host });
    const s = await ZkSession.connect({ connectString: proxy.connectString, sessionTimeoutMs: 4000 });
    try {
      const timeout = s.negotiatedSessionTimeoutMs;
      const eph = await s.create(`${root}/close-on-lost-`, null, { mode: 'ephemeral_sequential' });
      const gone = new Promise<number>((resolve) => {
        void observer.getData(eph.path, (e) => {
          if (e.type === 'deleted') resolve(performance.now());
        });
      });
      await observer.exists(eph.path); // the observer's watch is set
      await s.exists(root); // our clock is fresh
      const { lastAnsweredSentAt, lostDeadline, marginMs } = sessionInternals(s).livenessClock;
      expect(lostDeadline).toBe(lastAnsweredSentAt + timeout - marginMs);
      // Past our deadline, well before the earliest moment the server can expire the session.
      const mark = proxy.frames.length;
      const oldConnection = proxy.frames.at(-1)!.connection;
      // The next session may connect before the old one's node is seen gone: listen from the start.
      const connected = nextEvent(s, 'connected');
      stallUntil(lostDeadline + 20);
      expect(s.stillAlive()).toBe(false);
      await gone;
      // The lost session's connection carried nothing after the stall but CLOSE_SESSION (-11)...
      await connected;
      const after = proxy.frames.slice(mark).filter((f) => f.connection === oldConnection && f.direction === 'request');
      expect(after.map((f) => f.type)).toEqual([-11]);
      // ...read by the proxy, which forwards it in the same turn, before the server could expire the
      // session (it last heard from us no earlier than lastAnsweredSentAt): our close, not an
      // expiry, ended it. When the deletion was then seen depends on how busy the machine is.
      expectSoonerThan('CLOSE_SESSION sent after the lost deadline (before the server could expire the session)', after[0]!.at - lostDeadline, lastAnsweredSentAt + timeout - lostDeadline);
    } finally {
      await s.close();
      await proxy.close();
    }
  });

  it('a session that only receives (a stream of watch events) still pings and keeps its session', async () => {
    // 4 s, not less: a ping answered later than a third of the timeout counts as a server that does
    // not hear us, and a busy 2-core machine can delay one by more than the 0.67 s of a 2 s session.
    const s = await ZkSession.connect({ connectString: connectString(), sessionTimeoutMs: 4000 });
    try {
      const timeout = s.negotiatedSessionTimeoutMs;
      const sid = s.sessionId;
      const states: string[] = [];
      s.on('state', (st) => states.push(st));
      // 14 nodes watched by s; the observer changes one every eighth of the timeout, so bytes reach
      // s all along while s itself has nothing to send: only pings can keep its session.
      const paths: string[] = [];
      for (let i = 0; i < 14; i++) paths.push((await observer.create(`${root}/stream-`, null, { mode: 'persistent_sequential' })).path);
      let events = 0;
      await Promise.all(paths.map((p) => s.getData(p, () => void events++)));
      const interval = Math.floor(timeout / 8);
      const start = performance.now();
      for (const p of paths) {
        await observer.setData(p, Buffer.from('x'));
        await new Promise((resolve) => setTimeout(resolve, interval)); // the workload's pace, not a wait for anything
      }
      const lasted = performance.now() - start;
      expect(lasted).toBeGreaterThan(timeout); // long enough for a session without pings to expire
      await s.exists(root); // a round trip after the stream: every event delivered before its reply
      expect(events).toBe(paths.length);
      expect(states).toEqual([]);
      expect(s.sessionId).toBe(sid);
      expect(s.generation).toBe(1);
    } finally {
      await s.close();
    }
  });
});
