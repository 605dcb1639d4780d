/**
 * Curator's revocation protocol as a feature: `acquire({ onRevoke })` is told when
 * someone writes `__REVOKE__` to our node, and `requestRevocation()` writes it, both ways with
 * Curator 5.4 (`InterProcessMutex.makeRevocable`, `Revoker.attemptRevoke`; bench/java
 * CuratorWorker). A request is never a release: only the holder lets go.
 *
 * Orders are built from events (JSON lines of the Java processes, watches) and round trips
 * (`caughtUp`: ZooKeeper answers one session in order, events before later replies), never timers.
 * That a foreign `__REVOKE__` on a *waiting* node never passes the lock on is in safety.int.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requestRevocation, ZkSession, type LockHandle } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';
import {
  ensureCuratorPrograms,
  FaultProxy,
  firstServerAddress,
  serverWatchedPaths,
  spawnCuratorWorker,
  testConnectString,
  uniqueRoot,
  type CuratorWorker,
  pollUntil,
} from '@zk-recipes/testing';
import { brief, caughtUp, settledInWait, track, untilQueue, within } from '../../core/test/support/adversary.js';

const OP_GET_DATA = 4;
const root = uniqueRoot('mutex-revocation');
const BOUND_MS = 20_000;
let sessions: ZkSession[] = [];
const javaWorkers: CuratorWorker[] = [];

async function connect(connectString = testConnectString()): Promise<ZkSession> {
  const session = await ZkSession.connect({ connectString, sessionTimeoutMs: 6000 });
  sessions.push(session);
  return session;
}

async function java(args: string[]): Promise<CuratorWorker> {
  const worker = await spawnCuratorWorker(args);
  javaWorkers.push(worker);
  return worker;
}

/** Records every call of an `onRevoke` (CLOCK_MONOTONIC ns) and lets a test await the first. */
function revocationProbe(onCall: () => void = () => undefined): { onRevoke: () => void; calls: bigint[]; first: Promise<bigint> } {
  const calls: bigint[] = [];
  let told!: (at: bigint) => void;
  const first = new Promise<bigint>((resolve) => (told = resolve));
  return {
    calls,
    first,
    onRevoke: () => {
      const at = process.hrtime.bigint();
      calls.push(at);
      told(at);
      onCall();
    },
  };
}

beforeAll(async () => {
  await ensureCuratorPrograms(); // javac once, outside the first test's time
}, 120_000);

afterEach(async () => {
  const open = sessions;
  sessions = [];
  await Promise.all(open.map((s) => s.close()));
});

afterAll(async () => {
  await Promise.all(javaWorkers.map((w) => w.stop()));
});

describe('revocation, Node → Java', () => {
  it("requestRevocation() on a Curator holder made revocable: Curator's listener is asked, the holder releases, and the Node waiter behind it acquires only then", async () => {
    const path = `${root}/node-to-java`;
    const [sB, sOp] = await Promise.all([connect(), connect()]);
    const holder = await java(['mutex-revocable', testConnectString(), path]);
    const javaNode = String((await holder.waitForLine((l) => l.type === 'held')).node);
    expect(await untilQueue(sOp, path, 1)).toEqual([javaNode]);

    const waiter = track(new InterProcessMutex(sB, path).acquire().then((handle) => ({ handle, at: process.hrtime.bigint() })));
    await untilQueue(sOp, path, 2);
    await settledInWait(sB);
    expect(waiter.outcome.state).toBe('pending');
    expect(holder.lines.map((l) => l.type)).not.toContain('revoke-requested');

    await requestRevocation(sOp, javaNode);
    const asked = await holder.waitForLine((l) => l.type === 'revoke-requested', BOUND_MS);
    await holder.waitForLine((l) => l.type === 'released', BOUND_MS);
    const granted = await within(waiter.settled, BOUND_MS, 'the Node waiter to acquire after Curator released');
    expect(brief(granted)).toEqual({ state: 'resolved' });
    if (granted.state !== 'resolved') return;
    // The grant came after Curator was asked (one CLOCK_MONOTONIC for both processes).
    expect(granted.value.at).toBeGreaterThan(BigInt(String(asked.nanoTime)));
    await granted.value.handle.release();
    await holder.finished();
  });
});

describe('revocation, Java → Node', () => {
  it("Curator's Revoker.attemptRevoke on a Node holder: onRevoke is called once, the holder releases in it, and the Curator waiter behind acquires only then", async () => {
    const path = `${root}/java-to-node`;
    const [sH, sOp] = await Promise.all([connect(), connect()]);
    const probe = revocationProbe(() => void handle.release());
    const handle: LockHandle = await new InterProcessMutex(sH, path).acquire({ onRevoke: probe.onRevoke });

    const waiter = await java(['mutex', testConnectString(), path, '1', '0']);
    await untilQueue(sOp, path, 2);
    await caughtUp(sH);
    expect({ calls: probe.calls.length, sections: waiter.sections().length }).toEqual({ calls: 0, sections: 0 });

    const revoker = await java(['revoke', testConnectString(), handle.path]);
    await revoker.finished();
    const askedAt = await within(probe.first, BOUND_MS, 'onRevoke to be called');
    await waiter.finished();
    const [section] = waiter.sections();
    expect(section!.start).toBeGreaterThan(askedAt);
    expect({ calls: probe.calls.length, held: handle.held }).toEqual({ calls: 1, held: false });
  });
});

describe('revocation, Node → Node', () => {
  it('requestRevocation() on a holder with onRevoke: called once, after acquire() resolved; the holder releases in it and the waiter behind acquires', async () => {
    const path = `${root}/holder`;
    const [sH, sW, sOp] = await Promise.all([connect(), connect(), connect()]);
    const order: string[] = [];
    const handle: LockHandle = await new InterProcessMutex(sH, path).acquire({
      onRevoke: () => {
        order.push('revoke');
        void handle.release();
      },
    });
    order.push('acquired');
    const waiter = track(new InterProcessMutex(sW, path).acquire());
    await untilQueue(sOp, path, 2);
    await settledInWait(sW);
    await caughtUp(sH);
    expect({ order, waiter: waiter.outcome.state }).toEqual({ order: ['acquired'], waiter: 'pending' });

    await requestRevocation(sOp, handle.path);
    const granted = await within(waiter.settled, BOUND_MS, 'the waiter to acquire once the holder released');
    expect(brief(granted)).toEqual({ state: 'resolved' });
    await caughtUp(sH);
    expect({ order, held: handle.held }).toEqual({ order: ['acquired', 'revoke'], held: false });
    if (granted.state === 'resolved') await granted.value.release();
  });

  it('a request written while the contender still waits is not told while it waits, then told once, right after acquire() resolved', async () => {
    const path = `${root}/waiting`;
    const [sH, sW, sOp] = await Promise.all([connect(), connect(), connect()]);
    const held = await new InterProcessMutex(sH, path).acquire();
    const order: string[] = [];
    const waiter = track(
      new InterProcessMutex(sW, path).acquire({ onRevoke: () => order.push('revoke') }).then((handle) => {
        order.push('acquired');
        return handle;
      }),
    );
    const [, wNode] = await untilQueue(sOp, path, 2);
    await settledInWait(sW);

    await requestRevocation(sOp, wNode!);
    await settledInWait(sW); // W has read the marker (its data watch fired, the read is back)
    expect({ order, waiter: waiter.outcome.state, holder: held.signal.aborted }).toEqual({ order: [], waiter: 'pending', holder: false });

    await held.release();
    const granted = await within(waiter.settled, BOUND_MS, 'W to acquire once H released');
    expect(brief(granted)).toEqual({ state: 'resolved' });
    await settledInWait(sW); // anything more to tell (W's own announcement read back) has been told
    expect(order).toEqual(['acquired', 'revoke']);
    if (granted.state === 'resolved') await granted.value.release();
  });

  it('an onRevoke that throws when told at the grant: acquire() still resolves, and the error is the session\'s `error` event', async () => {
    const path = `${root}/throwing`;
    const [sH, sW, sOp] = await Promise.all([connect(), connect(), connect()]);
    const errors: Error[] = [];
    sW.on('error', (err) => errors.push(err));
    const held = await new InterProcessMutex(sH, path).acquire();
    const waiter = track(
      new InterProcessMutex(sW, path).acquire({
        onRevoke: () => {
          throw new Error('onRevoke threw');
        },
      }),
    );
    const [, wNode] = await untilQueue(sOp, path, 2);
    await settledInWait(sW);
    await requestRevocation(sOp, wNode!);
    await settledInWait(sW);

    await held.release();
    const granted = await within(waiter.settled, BOUND_MS, 'W to acquire although its onRevoke throws');
    expect(brief(granted)).toEqual({ state: 'resolved' });
    await settledInWait(sW);
    expect(errors.map((e) => e.message)).toEqual(['onRevoke threw']);
    if (granted.state === 'resolved') await granted.value.release();
  });

  it('without onRevoke no data watch is set on our node and nothing reads it; a request then changes nothing: the holder keeps the lock, the waiter keeps waiting', async () => {
    const path = `${root}/not-revocable`;
    const { host, port } = firstServerAddress(testConnectString());
    const proxy = await FaultProxy.start({ targetHost: host, targetPort: port });
    try {
      const sP = await connect(proxy.connectString);
      const [sW, sOp] = await Promise.all([connect(), connect()]);
      await sP.mkdirp(path);
      const watched = async (node: string): Promise<boolean> => (await serverWatchedPaths(testConnectString(), sP.sessionIdBigInt)).has(node);

      // The control: with onRevoke, our node is read with a data watch.
      let mark = proxy.frames.length;
      const revocable = await new InterProcessMutex(sP, path).acquire({ onRevoke: () => undefined });
      // The data watch is set a turn after the grant: a round trip sent sooner would not wait for it.
      await pollUntil(() => proxy.answersTo(OP_GET_DATA, revocable.path) > 0, 15_000, "the revocable holder's read of its node");
      await caughtUp(sP);
      expect({ read: proxy.requestTypesSince(mark).includes(OP_GET_DATA), watched: await watched(revocable.path) }).toEqual({ read: true, watched: true });
      await revocable.release();

      mark = proxy.frames.length;
      const mutex = new InterProcessMutex(sP, path);
      const lost: Error[] = [];
      mutex.on('lost', (reason) => lost.push(reason));
      const handle = await mutex.acquire();
      await caughtUp(sP);
      expect({ read: proxy.requestTypesSince(mark).includes(OP_GET_DATA), watched: await watched(handle.path) }).toEqual({ read: false, watched: false });

      const waiter = track(new InterProcessMutex(sW, path).acquire());
      await untilQueue(sOp, path, 2);
      await settledInWait(sW);
      await requestRevocation(sOp, handle.path);
      await settledInWait(sW); // W has seen the write to the node it waits for, and acted on it
      await caughtUp(sP);
      expect({ held: handle.held, aborted: handle.signal.aborted, lost: lost.length, waiter: waiter.outcome.state }).toEqual({
        held: true,
        aborted: false,
        lost: 0,
        waiter: 'pending',
      });
      await handle.release();
      const granted = await within(waiter.settled, BOUND_MS, 'W to acquire once the holder released');
      expect(brief(granted)).toEqual({ state: 'resolved' });
      if (granted.state === 'resolved') await granted.value.release();
    } finally {
      await Promise.all(sessions.map((s) => s.close()));
      sessions = [];
      await proxy.close();
    }
  });
});
