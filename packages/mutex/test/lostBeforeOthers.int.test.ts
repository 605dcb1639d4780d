/**
 * Issue 13, "lost before anyone else can acquire": a holder cut off from ZooKeeper must learn it
 * (its handle's `signal` aborts) before another process can hold the same lock. The holder talks
 * to the server through a FaultProxy; the other process is connected directly. Partitions:
 *
 * - two-way: nothing passes either way (`blackhole`);
 * - one-way: the holder's frames are held, the server's still reach it (`holdRequests`);
 * - one-way with events: the same, while the holder also waits on other locks whose holders keep
 *   releasing, so watch events keep arriving although the server hears nothing from it (with
 *   the old rule, "no bytes received for a session timeout", that case held the lock 3.8 s too long).
 *
 * Sessions of 2 s, 6 s and 20 s against servers ticking every 200 ms (the shared server) and
 * every 2 s (a server of our own: sessions of 4..40 s). Times are performance.now() in this one
 * process; every wait is on an event, never a sleep.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionLostError, ZkSession, type LockHandle } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { FaultProxy, MachineLoad, TestingServer, firstServerAddress, testConnectString, uniqueRoot, untilChildCount } from '@zk-recipes/testing';
import { sessionInternals } from '@zk-recipes/core/internal';

type Partition = 'two-way' | 'one-way' | 'one-way with events';

interface Target {
  host: string;
  port: number;
  connectString: string;
}

const root = uniqueRoot('lost-before-others');
/** The machine's load: how late this process's timers may fire is judged against it. */
let load: MachineLoad;
beforeAll(() => {
  load = MachineLoad.start();
});
afterAll(() => {
  load.stop();
});

interface Outcome {
  /** When the holder's handle signal aborted. */
  abortedAt: number;
  /** When the other process's acquire() resolved. */
  grantedAt: number;
  /** Whether the holder's signal had aborted when the other process was granted the lock. */
  abortedAtGrant: boolean;
  /** The holder's liveness clock when it declared the session lost. */
  lastAnsweredSentAt: number;
  marginMs: number;
  sessionMs: number;
  /** Watch events that reached the holder during the partition. */
  eventsDuringPartition: number;
  lostReason: unknown;
  /** When the partition began (CLOCK_MONOTONIC ns), for the machine's load over it. */
  partitionedAt: bigint;
}

/** One holder behind a proxy, one contender connected directly, one partition. */
async function partitionedHolder(target: Target, sessionMs: number, partition: Partition, name: string): Promise<Outcome> {
  const path = `${root}/${name}`;
  const proxy = await FaultProxy.start({ targetPort: target.port, targetHost: target.host });
  const sessions: ZkSession[] = [];
  const connect = async (connectString: string, timeout: number): Promise<ZkSession> => {
    const s = await ZkSession.connect({ connectString, sessionTimeoutMs: timeout });
    sessions.push(s);
    return s;
  };
  const feedHolds: LockHandle[] = [];
  let feeding: NodeJS.Timeout | undefined;
  try {
    const holder = await connect(proxy.connectString, sessionMs);
    // Only the holder's session is under test: the others get the longest the server allows, so
    // that a busy machine does not take theirs.
    const other = await connect(target.connectString, 40_000);
    expect(holder.negotiatedSessionTimeoutMs).toBe(sessionMs);

    const handle = await new InterProcessMutex(holder, path).acquire();
    let abortedAt = Number.NaN;
    let clockAtAbort = sessionInternals(holder).livenessClock;
    handle.signal.addEventListener(
      'abort',
      () => {
        abortedAt = performance.now();
        // Still the lost generation's clock: the abort runs inside the session's retirement.
        clockAtAbort = sessionInternals(holder).livenessClock;
      },
      { once: true },
    );
    const lostReason = new Promise<unknown>((resolve) => holder.once('lost', resolve));

    // The holder also waits on `feeds` other locks, each held by `feeder`: each release sends the
    // holder a watch event (the holder is queued right behind it).
    const feeds = partition === 'one-way with events' ? 12 : 0;
    const feeder = feeds > 0 ? await connect(target.connectString, 40_000) : undefined;
    const holderWaits: Array<Promise<unknown>> = [];
    // Waiters survive the loss of their session (they enqueue again on the next one): these are
    // only there for their events, so they are called off once the outcome is in.
    const stopWaits = new AbortController();
    for (let i = 0; i < feeds; i++) {
      const feedPath = `${path}-feed-${i}`;
      feedHolds.push(await new InterProcessMutex(feeder!, feedPath).acquire());
      holderWaits.push(new InterProcessMutex(holder, feedPath).acquire({ signal: stopWaits.signal }).catch((e: unknown) => e));
      await untilChildCount(other, feedPath, 2);
    }

    // The other process queues behind the holder now, so it can take the lock the moment the
    // server deletes the holder's node.
    const contended = new InterProcessMutex(other, path).acquire();
    await untilChildCount(other, path, 2);

    // Replies to the holder's last requests must have arrived, so that its clock stands still.
    const { lastAnsweredSentAt: before } = sessionInternals(holder).livenessClock;
    await holder.exists(path);
    expect(sessionInternals(holder).livenessClock.lastAnsweredSentAt).toBeGreaterThan(before);
    const framesMark = proxy.frames.length;
    const partitionedAt = process.hrtime.bigint();
    if (partition === 'two-way') void proxy.blackhole();
    else proxy.holdRequests();

    if (feeds > 0) {
      // Release one feed lock every tenth of the session timeout: events for the holder all along.
      const interval = Math.max(100, Math.floor(sessionMs / 10));
      feeding = setInterval(() => {
        const next = feedHolds.shift();
        if (next === undefined) clearInterval(feeding);
        else void next.release();
      }, interval);
    }

    const granted = await contended.then((h) => {
      const out = { h, at: performance.now(), aborted: handle.signal.aborted };
      return out;
    });
    clearInterval(feeding);
    const reason = await lostReason;
    await granted.h.release();
    stopWaits.abort();
    await Promise.all(holderWaits);
    const eventsDuringPartition = proxy.frames
      .slice(framesMark)
      .filter((f) => f.direction === 'reply' && f.xid === -1 && f.at <= abortedAt).length;
    return {
      abortedAt,
      grantedAt: granted.at,
      abortedAtGrant: granted.aborted,
      lastAnsweredSentAt: clockAtAbort.lastAnsweredSentAt,
      marginMs: clockAtAbort.marginMs,
      sessionMs,
      eventsDuringPartition,
      lostReason: reason,
      partitionedAt,
    };
  } finally {
    clearInterval(feeding);
    proxy.heal();
    await Promise.all(feedHolds.map((h) => h.release().catch(() => undefined)));
    await Promise.all(sessions.map((s) => s.close()));
    await proxy.close();
  }
}

function expectToldFirst(o: Outcome, partition: Partition): void {
  // Exclusion, exact: the holder's signal aborted before the other process held the lock...
  expect(o.abortedAtGrant, 'EXCLUSION BROKEN: the other process held the lock before the holder was told').toBe(true);
  expect(o.abortedAt, 'EXCLUSION BROKEN: the other process held the lock before the holder was told').toBeLessThan(o.grantedAt);
  // ...at our deadline (never before it), which lies before the earliest moment the server could
  // expire the session: the lost timer fires at most the margin after it is due, on a machine that
  // runs this process's timers on time (a time bound: judged against the machine's slowness).
  const dueAt = o.lastAnsweredSentAt + o.sessionMs - o.marginMs;
  expect(o.abortedAt).toBeGreaterThanOrEqual(dueAt);
  const late = load.judge(`the lost timer, from its due time (${o.marginMs} ms before the earliest expiry) to the abort`, o.abortedAt - dueAt, o.marginMs, o.partitionedAt);
  expect(late.tookMs, late.message).toBeLessThan(late.boundMs);
  expect(o.lostReason).toBeInstanceOf(SessionLostError);
  expect(String((o.lostReason as Error).message)).toMatch(/no reply from any server/);
  if (partition === 'one-way with events') expect(o.eventsDuringPartition).toBeGreaterThanOrEqual(2);
}

describe('tick 200 ms (the shared server)', () => {
  const shared = (): Target => ({ connectString: testConnectString(), ...firstServerAddress(testConnectString()) });
  const cases: Array<[number, Partition]> = [
    [2000, 'two-way'],
    [2000, 'one-way'],
    [2000, 'one-way with events'],
    [6000, 'two-way'],
    [6000, 'one-way with events'],
  ];
  it.concurrent.each(cases)('session %i ms, %s partition: the holder is told before anyone else acquires', async (sessionMs, partition) => {
    const o = await partitionedHolder(shared(), sessionMs, partition, `t200-${sessionMs}-${partition.replaceAll(' ', '-')}`);
    console.log(`${sessionMs} ${partition}: told ${(o.grantedAt - o.abortedAt).toFixed(0)} ms before the grant, ${(o.lastAnsweredSentAt + o.sessionMs - o.abortedAt).toFixed(0)} ms before the earliest expiry, ${o.eventsDuringPartition} events`);
    expectToldFirst(o, partition);
  });
});

describe('tick 2 s (a server of our own)', () => {
  let server: TestingServer;
  beforeAll(async () => {
    server = await TestingServer.start({ tickTimeMs: 2000, forceSync: false });
  });
  afterAll(async () => {
    await server?.stop();
  });
  const own = (): Target => ({ connectString: server.connectString, host: '127.0.0.1', port: server.port });
  const cases: Array<[number, Partition]> = [
    [6000, 'two-way'],
    [6000, 'one-way'],
    [6000, 'one-way with events'],
    [20_000, 'two-way'],
    [20_000, 'one-way with events'],
  ];
  it.concurrent.each(cases)('session %i ms, %s partition: the holder is told before anyone else acquires', async (sessionMs, partition) => {
    const o = await partitionedHolder(own(), sessionMs, partition, `t2000-${sessionMs}-${partition.replaceAll(' ', '-')}`);
    console.log(`${sessionMs} ${partition}: told ${(o.grantedAt - o.abortedAt).toFixed(0)} ms before the grant, ${(o.lastAnsweredSentAt + o.sessionMs - o.abortedAt).toFixed(0)} ms before the earliest expiry, ${o.eventsDuringPartition} events`);
    expectToldFirst(o, partition);
  });
});
