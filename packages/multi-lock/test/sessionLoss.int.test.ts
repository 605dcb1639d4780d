/**
 * A multi-lock acquisition that loses a session before it is whole (docs/multi-lock.md, "Losing a
 * member"): it never resolves with a member already lost. A member it already
 * holds, lost with its session, ends it with SESSION_LOST and nothing left behind, on the old
 * session or the next one; a member still waiting whose session is lost waits on (the engine's
 * "A waiter survives its session"), and the members it holds stay held.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ZkSession } from '@zk-recipes/core';
import { sessionInternals } from '@zk-recipes/core/internal';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { expireSession, FaultProxy, testConnectString, uniqueRoot } from '@zk-recipes/testing';
import { InterProcessMultiLock, type MultiLockHandle } from '../src/index.js';
import { brief, queueOf, settledInWait, track, untilQueue, within } from '../../core/test/support/adversary.js';

const root = uniqueRoot('multi-lock-session-loss');
let sessions: ZkSession[] = [];
let counter = 0;
const freshPath = (label: string) => `${root}/${++counter}-${label}`;

async function connect(connectString = testConnectString()): Promise<ZkSession> {
  const session = await ZkSession.connect({ connectString, sessionTimeoutMs: 4000 });
  sessions.push(session);
  return session;
}

afterEach(async () => {
  const open = sessions;
  sessions = [];
  await Promise.all(open.map((s) => s.close()));
});

/** Expires `session` on the server and returns once its next ZooKeeper session is connected. */
async function expireAndReconnect(session: ZkSession): Promise<void> {
  const connected = new Promise<void>((resolve) => session.once('lost', () => session.once('connected', () => resolve())));
  await expireSession(testConnectString(), sessionInternals(session).credentials);
  await connected;
}

/** Runs `body` with a FaultProxy in front of the test server, closed afterwards. */
async function throughProxy(body: (proxy: FaultProxy) => Promise<void>): Promise<void> {
  const [host, port] = testConnectString().split(',')[0]!.split(':');
  const proxy = await FaultProxy.start({ targetHost: host!, targetPort: Number(port) });
  try {
    await body(proxy);
  } finally {
    await proxy.close();
  }
}

/**
 * Loses `session` (connected through `proxy`) without its watch events racing the loss: the
 * server hears nothing more from it until it declares its session lost itself; then the old
 * session is expired on the server (its nodes go at once) and the client reconnects. (With
 * `expireSession` alone, the deletion of a waiter's node sometimes reaches the client before the
 * session's end does, and the engine takes it for someone else's delete.)
 */
async function loseThroughPartition(session: ZkSession, proxy: FaultProxy): Promise<void> {
  const credentials = sessionInternals(session).credentials;
  const lost = new Promise<void>((resolve) => session.once('lost', () => resolve()));
  proxy.holdRequests();
  await lost;
  await expireSession(testConnectString(), credentials);
  const connected = new Promise<void>((resolve) => session.once('connected', () => resolve()));
  proxy.heal();
  await connected;
}

/** Notes the lock-node creates `session` sends, with the ZooKeeper session each went to. */
function recordCreates(session: ZkSession, log: Array<{ path: string; sessionId: string }>): void {
  const create = session.create.bind(session);
  session.create = ((path: string, ...rest: unknown[]) => {
    log.push({ path, sessionId: session.sessionId });
    return (create as (...args: unknown[]) => ReturnType<ZkSession['create']>)(path, ...rest);
  }) as ZkSession['create'];
}

/** Every member live (signal not aborted) and its node on the server, owned by `owners[i]`'s current session. */
async function expectAllLive(handle: MultiLockHandle, owners: readonly ZkSession[], observer: ZkSession): Promise<void> {
  expect(handle.signal.aborted).toBe(false);
  for (const [i, member] of handle.members.entries()) {
    const stat = await observer.exists(member.path);
    expect({ path: member.path, aborted: member.signal.aborted, owner: stat?.ephemeralOwner }).toEqual({
      path: member.path,
      aborted: false,
      owner: owners[i]!.sessionIdBigInt,
    });
  }
}

/**
 * The code of an acquisition that ended because a member it held went with its expired session:
 * `SESSION_LOST`, or `NODE_DELETED` when the client read its node's deletion before the session's
 * end (the server sends the deletions' watch events, then closes the connection; `expireSession`
 * closes the session from another connection, and the events sometimes reach ours first).
 */
function expectRejectedLost(outcome: Parameters<typeof brief>[0]): void {
  expect(brief(outcome)).toMatchObject({ state: 'rejected' });
  expect(['SESSION_LOST', 'NODE_DELETED']).toContain(brief(outcome)['code']);
}

describe('InterProcessMultiLock across a lost session', () => {
  it('members on one session: a held one is lost while the next waits: rejects (SESSION_LOST), and the waiting one is not queued again on the next session', async () => {
    const [a, b] = [freshPath('a'), freshPath('b')];
    const [doomed, blockerSession, observer] = await Promise.all([connect(), connect(), connect()]);
    const creates: Array<{ path: string; sessionId: string }> = [];
    recordCreates(doomed, creates);
    const blocker = await new InterProcessMutex(blockerSession, b).acquire();
    const firstSession = doomed.sessionId;
    const multi = InterProcessMultiLock.fromPaths(doomed, [a, b]);
    const acquisition = track(multi.acquire({ timeoutMs: 30_000 }));
    await untilQueue(observer, b, 2); // a held, b waited for
    await settledInWait(doomed);
    await expireAndReconnect(doomed);
    const outcome = await within(acquisition.settled, 10_000, 'the multi-lock to settle');
    if (outcome.state === 'resolved') await expectAllLive(outcome.value, [doomed, doomed], observer);
    expectRejectedLost(outcome);
    await settledInWait(doomed);
    expect(creates.filter((create) => create.sessionId !== firstSession)).toEqual([]);
    expect(await queueOf(observer, a)).toEqual([]);
    expect(await queueOf(observer, b)).toEqual([blocker.path]);
    expect(multi.isAcquiredInThisProcess()).toBe(false);
    await blocker.release();
  });

  it('members on two sessions: the waiting member loses its session: it waits on, on the next one, and the multi-lock resolves with every member live', () =>
    throughProxy(async (proxy) => {
      const [a, b] = [freshPath('a'), freshPath('b')];
      const [steady, doomed, blockerSession, observer] = await Promise.all([connect(), connect(proxy.connectString), connect(), connect()]);
      const blocker = await new InterProcessMutex(blockerSession, b).acquire();
      const multi = new InterProcessMultiLock([new InterProcessMutex(steady, a), new InterProcessMutex(doomed, b)]);
      const acquisition = track(multi.acquire({ timeoutMs: 30_000 }));
      await untilQueue(observer, b, 2);
      await settledInWait(doomed);
      await loseThroughPartition(doomed, proxy);
      await untilQueue(observer, b, 2); // queued again, on the next session
      await settledInWait(doomed);
      expect(brief(acquisition.outcome)).toEqual({ state: 'pending' });
      await blocker.release();
      const outcome = await within(acquisition.settled, 10_000, 'the multi-lock to be granted');
      expect(brief(outcome)).toEqual({ state: 'resolved' });
      const handle = (outcome as { value: MultiLockHandle }).value;
      await expectAllLive(handle, [steady, doomed], observer);
      await handle.release();
      expect([...(await queueOf(observer, a)), ...(await queueOf(observer, b))]).toEqual([]);
    }));

  it('members on two sessions: a held member loses its session while the next waits: rejects at once (SESSION_LOST), nothing left', async () => {
    const [a, b] = [freshPath('a'), freshPath('b')];
    const [doomed, steady, blockerSession, observer] = await Promise.all([connect(), connect(), connect(), connect()]);
    const blocker = await new InterProcessMutex(blockerSession, b).acquire();
    const multi = new InterProcessMultiLock([new InterProcessMutex(doomed, a), new InterProcessMutex(steady, b)]);
    const acquisition = track(multi.acquire({ timeoutMs: 30_000 }));
    await untilQueue(observer, b, 2);
    await settledInWait(steady);
    await expireAndReconnect(doomed);
    const outcome = await within(acquisition.settled, 10_000, 'the multi-lock to settle');
    if (outcome.state === 'resolved') await expectAllLive(outcome.value, [doomed, steady], observer);
    expectRejectedLost(outcome);
    expect(await queueOf(observer, a)).toEqual([]);
    expect(await queueOf(observer, b)).toEqual([blocker.path]);
    await blocker.release();
  });

  it('re-entry from the holder after its members were lost with their session: rejects (SESSION_LOST), creates nothing, and the outer release does not throw', async () => {
    const [a, b] = [freshPath('a'), freshPath('b')];
    const [doomed, observer] = await Promise.all([connect(), connect()]);
    const creates: Array<{ path: string; sessionId: string }> = [];
    const multi = InterProcessMultiLock.fromPaths(doomed, [a, b]);
    const outer = await multi.acquire({ timeoutMs: 10_000 });
    recordCreates(doomed, creates);
    await expireAndReconnect(doomed);
    expect(outer.signal.aborted).toBe(true);
    const inner = await multi.acquire({ timeoutMs: 5_000 }).then(
      (handle) => ({ state: 'resolved' as const, value: handle }),
      (reason: unknown) => ({ state: 'rejected' as const, reason }),
    );
    if (inner.state === 'resolved') await expectAllLive(inner.value, [doomed, doomed], observer);
    expectRejectedLost(inner);
    expect(creates).toEqual([]);
    await outer.release();
    expect([...(await queueOf(observer, a)), ...(await queueOf(observer, b))]).toEqual([]);
  });

  it('a member re-entered from the holder, then lost: a new multi-lock acquisition in that context rejects, and gives back the re-entry it made', async () => {
    const [a, b] = [freshPath('a'), freshPath('b')];
    const [steady, doomed, observer] = await Promise.all([connect(), connect(), connect()]);
    const mutexA = new InterProcessMutex(steady, a);
    const mutexB = new InterProcessMutex(doomed, b);
    const multi = new InterProcessMultiLock([mutexA, mutexB]);
    const outer = await multi.acquire({ timeoutMs: 10_000 });
    await expireAndReconnect(doomed); // b is lost, a is still held
    const inner = await multi.acquire({ timeoutMs: 5_000 }).then(
      (handle: MultiLockHandle) => ({ state: 'resolved' as const, value: handle }),
      (reason: unknown) => ({ state: 'rejected' as const, reason }),
    );
    expectRejectedLost(inner);
    // a's re-entry was given back: one release of the outer acquisition frees it.
    await outer.release();
    expect(mutexA.isAcquiredInThisProcess()).toBe(false);
    expect([...(await queueOf(observer, a)), ...(await queueOf(observer, b))]).toEqual([]);
  });
});
