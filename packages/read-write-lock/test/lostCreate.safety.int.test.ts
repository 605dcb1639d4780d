/**
 * A write lock whose first create was lost with its connection, downgraded, then released
 * (docs/architecture.md, "The lost create reply"). The create the server never saw is sent again;
 * the lock remembers its GUID, because the lost one may yet be applied late, and its release
 * sweeps the directory for nodes carrying that GUID, at once and a session timeout later. The
 * downgrade's read node carries the same GUID by design (it is named after the write node): the
 * sweeps must leave it alone while it is held, so a writer of another session waiting behind is
 * granted only once the read lock is released.
 *
 * The holder's session goes through a FaultProxy that drops the first create together with its
 * connection and counts the sweeps' listings; every order is built from round trips and events
 * (see `caughtUp`), never from timers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ZkSession, type LockHandle } from '@zk-recipes/core';
import { sessionInternals } from '@zk-recipes/core/internal';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { expireSession, FaultProxy, pollUntil, testConnectString, uniqueRoot } from '@zk-recipes/testing';
import { brief, caughtUp, codeOf, settledInWait, signalState, track, untilQueue, within, type Tracked } from '../../core/test/support/adversary.js';
import { proxyToTestServer } from './support/zk.js';

const OP_CREATE2 = 15;
const OP_GET_CHILDREN2 = 12;
const SESSION_TIMEOUT_MS = 4000;
const BOUND_MS = 15_000;

const root = uniqueRoot('rwlock-lost-create');
let sessions: ZkSession[] = [];
let proxies: FaultProxy[] = [];
let counter = 0;
const freshPath = (label: string) => `${root}/${++counter}-${label}`;
const nameOf = (path: string) => path.slice(path.lastIndexOf('/') + 1);

async function connect(connectString = testConnectString()): Promise<ZkSession> {
  const session = await ZkSession.connect({ connectString, sessionTimeoutMs: SESSION_TIMEOUT_MS });
  sessions.push(session);
  return session;
}

async function connectThroughProxy(): Promise<{ session: ZkSession; proxy: FaultProxy }> {
  const proxy = await proxyToTestServer();
  proxies.push(proxy);
  return { session: await connect(proxy.connectString), proxy };
}

afterEach(async () => {
  const open = sessions;
  sessions = [];
  await Promise.all(open.map((s) => s.close()));
  await Promise.all(proxies.splice(0).map((p) => p.close()));
});

type Naming = 'zk-recipes' | 'curator';

/**
 * Session A (behind a proxy) takes the write lock of a fresh path with its first create dropped
 * with the connection (the server never sees it), a writer of session B queues behind it, and A
 * downgrades. Returns when B waits on the server.
 */
async function lostCreateThenDowngrade(naming: Naming) {
  const { session: a, proxy } = await connectThroughProxy();
  const [b, observer] = await Promise.all([connect(), connect()]);
  const path = freshPath(naming);
  await observer.mkdirp(path); // the steady state of a lock path: the first create answers nothing but its own
  const rwA = new InterProcessReadWriteLock(a, path, { naming });
  const readLost: Error[] = [];
  rwA.readLock().on('lost', (reason) => readLost.push(reason));

  const dropped = proxy.dropNextRequest(OP_CREATE2);
  const writing = rwA.writeLock().acquire({ timeoutMs: BOUND_MS });
  await within(dropped, BOUND_MS, 'the first create to be dropped with its connection');
  const write = await writing;
  // The dropped create was looked for after the reconnection, not found, and sent again: two
  // creates of the same name (GUID), one answered.
  const requested = write.path.slice(0, -10);
  expect([proxy.requestsTo(OP_CREATE2, requested), proxy.answersTo(OP_CREATE2, requested)], 'creates of the write node sent, answered').toEqual([2, 1]);
  expect(await untilQueue(observer, path, 1)).toEqual([write.path]);

  const bWriting = track(new InterProcessReadWriteLock(b, path, { naming }).writeLock().acquire());
  await untilQueue(observer, path, 2);
  await settledInWait(b);

  const read = await rwA.readLock().acquire(); // downgrade: at the write node's place, same GUID
  expect(nameOf(read.path).slice(0, 40)).toBe(nameOf(write.path).slice(0, 40));
  return { a, b, observer, proxy, path, write, read, readLost, bWriting };
}

/** Resolves once A's sweeps have listed the directory `count` times since `mark`, and A and B have acted on everything since. */
async function afterSweeps(t: { a: ZkSession; b: ZkSession; proxy: FaultProxy; path: string }, mark: number, count: number, boundMs: number): Promise<void> {
  await pollUntil(() => t.proxy.answersTo(OP_GET_CHILDREN2, t.path) >= mark + count, boundMs, `sweep listing ${count} of ${t.path}`);
  // The sweep's deletes (if any) go out once its listing is read: the first round trip is behind
  // the listing, the second behind anything sent on it.
  await settledInWait(t.a);
  await caughtUp(t.b);
}

/** The downgrade's read node still stands and is held, and B's writer is not granted beside it. */
async function expectReadStillHeld(t: { observer: ZkSession; read: LockHandle; bWriting: Tracked<LockHandle> }, when: string): Promise<void> {
  expect((await t.observer.exists(t.read.path)) !== null, `exclusion: the read node ${nameOf(t.read.path)} is gone ${when}, while A holds the read lock`).toBe(true);
  expect({ held: t.read.held, ...signalState(t.read.signal) }, `A's read handle ${when}`).toEqual({ held: true, aborted: false, code: undefined });
  expect(brief(t.bWriting.outcome), `exclusion: B's writer ${when}, while A holds the read lock`).toEqual({ state: 'pending' });
}

describe('InterProcessReadWriteLock: a write lock whose first create was lost, downgraded, then released', () => {
  for (const naming of ['zk-recipes', 'curator'] as const) {
    it(`${naming} naming: the sweeps for the lost create (at the release and a session timeout later) leave the held read node alone; B's writer waiting behind is granted only once the read lock is released`, async () => {
      const t = await lostCreateThenDowngrade(naming);
      const mark = t.proxy.answersTo(OP_GET_CHILDREN2, t.path);
      await t.write.release();
      await afterSweeps(t, mark, 1, BOUND_MS);
      await expectReadStillHeld(t, 'after the sweep at the write release');
      await afterSweeps(t, mark, 2, t.a.negotiatedSessionTimeoutMs + BOUND_MS);
      await expectReadStillHeld(t, 'after the sweep a session timeout later');

      await t.read.release();
      const outcome = await within(t.bWriting.settled, BOUND_MS, "B's writer to be granted after the read lock's release");
      expect(brief(outcome)).toEqual({ state: 'resolved' });
      const bWrite = (outcome as { value: LockHandle }).value;
      expect(await untilQueue(t.observer, t.path, 1)).toEqual([bWrite.path]);
      expect(t.readLost).toEqual([]);
      await bWrite.release();
    });

    for (const expiresAfter of ['the downgrade', 'the write release'] as const) {
      it(`${naming} naming, A's session expires after ${expiresAfter}: the read lock is reported lost (signal aborted, \`lost\`), B's writer is granted, and nothing A does afterwards touches B's node`, async () => {
        const t = await lostCreateThenDowngrade(naming);
        const mark = t.proxy.answersTo(OP_GET_CHILDREN2, t.path);
        if (expiresAfter === 'the write release') {
          await t.write.release();
          await afterSweeps(t, mark, 1, BOUND_MS);
          await expectReadStillHeld(t, 'after the sweep at the write release');
        }
        const lost = new Promise<void>((resolve) => t.a.once('lost', () => resolve()));
        await expireSession(testConnectString(), sessionInternals(t.a).credentials);
        await within(lost, BOUND_MS, "A to learn its session's expiry");
        expect(signalState(t.read.signal), "A's read handle once its session is lost").toEqual({ aborted: true, code: 'SESSION_LOST' });
        expect(t.readLost.map(codeOf), "A's readLock() `lost` events").toEqual(['SESSION_LOST']);
        const outcome = await within(t.bWriting.settled, BOUND_MS, "B's writer to be granted once A's nodes went with its session");
        expect(brief(outcome)).toEqual({ state: 'resolved' });
        const bWrite = (outcome as { value: LockHandle }).value;
        expect(t.read.signal.aborted, 'exclusion: B holds the write lock while A still holds the read lock').toBe(true);

        // A lets go of what it held (no throw for a lost holding); none of it reaches B's node.
        if (expiresAfter === 'the downgrade') await t.write.release();
        await t.read.release();
        await settledInWait(t.a);
        await caughtUp(t.b);
        expect(await untilQueue(t.observer, t.path, 1)).toEqual([bWrite.path]);
        expect(signalState(bWrite.signal), "B's write handle after A's releases").toEqual({ aborted: false, code: undefined });
        await bWrite.release();
      });
    }
  }
});
