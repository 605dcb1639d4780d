/**
 * A semaphore acquisition whose ZooKeeper session is lost before it is whole (docs/semaphore.md,
 * "Losing the session while waiting"): it never resolves with a lease already lost, never creates
 * a `curator`-layout lease node without holding the internal lock, and a rejection leaves no node.
 * Every order is built from round trips and events; the only time bound is the one the scenario
 * is about (a free lease must not sit idle while two clients wait).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { retryForever, retryNTimes, sessionFailedRetryPolicy, ZkSession, type RetryPolicy } from '@zk-recipes/core';
import { sessionInternals } from '@zk-recipes/core/internal';
import { expireSession, FaultProxy, testConnectString, uniqueRoot } from '@zk-recipes/testing';
import { InterProcessSemaphore, type Lease, type SemaphoreLayout } from '../src/index.js';
import { brief, Operator, queueOf, settledInWait, track, untilQueue, within, type Tracked } from '../../core/test/support/adversary.js';

const SESSION_TIMEOUT_MS = 4000;
const root = uniqueRoot('semaphore-session-loss');
let sessions: ZkSession[] = [];
let counter = 0;
const freshPath = (label: string) => `${root}/${++counter}-${label}`;

async function connect(retryPolicy?: RetryPolicy, connectString = testConnectString()): Promise<ZkSession> {
  const session = await ZkSession.connect({ connectString, sessionTimeoutMs: SESSION_TIMEOUT_MS, retryPolicy });
  sessions.push(session);
  return session;
}

afterEach(async () => {
  const open = sessions;
  sessions = [];
  await Promise.all(open.map((s) => s.close()));
});

const semaphore = (session: ZkSession, path: string, maxLeases: number, layout: SemaphoreLayout) => new InterProcessSemaphore(session, path, { maxLeases, layout });

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

/** Resolves once the directories in `dirs` hold `total` children together (child watches, no polling). */
async function untilTotal(observer: ZkSession, dirs: readonly string[], total: number): Promise<void> {
  for (;;) {
    let wake!: () => void;
    const changed = new Promise<void>((resolve) => (wake = resolve));
    let count = 0;
    for (const dir of dirs) {
      try {
        count += (await observer.getChildren(dir, () => wake())).children.length;
      } catch {
        await observer.exists(dir, () => wake());
      }
    }
    if (count === total) return;
    await within(changed, 15_000, `${dirs.join(' + ')} to hold ${total} nodes`);
  }
}

/** One create or delete a client sent in the `curator` layout's directories, with the ZooKeeper session it went to. */
interface NodeEvent {
  op: 'create' | 'delete';
  dir: 'locks' | 'leases';
  path: string;
  sessionId: string;
}

/**
 * Notes every create and delete `session` sends under `path`'s `locks/` and `leases/`, in the
 * order sent (the server applies one session's requests in that order).
 */
function recordNodeEvents(session: ZkSession, path: string, log: NodeEvent[]): void {
  const dirOf = (nodePath: string): NodeEvent['dir'] | undefined =>
    nodePath.startsWith(`${path}/locks/`) ? 'locks' : nodePath.startsWith(`${path}/leases/`) ? 'leases' : undefined;
  const create = session.create.bind(session);
  session.create = ((nodePath: string, ...rest: unknown[]) => {
    const dir = dirOf(nodePath);
    if (dir !== undefined) log.push({ op: 'create', dir, path: nodePath, sessionId: session.sessionId });
    return (create as (...args: unknown[]) => ReturnType<ZkSession['create']>)(nodePath, ...rest);
  }) as ZkSession['create'];
  const remove = session.delete.bind(session);
  session.delete = ((nodePath: string, ...rest: unknown[]) => {
    const dir = dirOf(nodePath);
    if (dir !== undefined) log.push({ op: 'delete', dir, path: nodePath, sessionId: session.sessionId });
    return (remove as (...args: unknown[]) => ReturnType<ZkSession['delete']>)(nodePath, ...rest);
  }) as ZkSession['delete'];
}

/**
 * The lease creates in `log` that were sent while their client held no internal lock node in the
 * same ZooKeeper session: one created there before and not deleted since (a lock node of a lost
 * session went with it, so it does not count on the next one).
 */
function leaseCreatesWithoutLock(log: readonly NodeEvent[]): NodeEvent[] {
  const liveLocks = new Map<string, string>(); // lock node path → its session
  const orphans: NodeEvent[] = [];
  for (const event of log) {
    if (event.dir === 'locks') {
      if (event.op === 'create') liveLocks.set(event.path, event.sessionId);
      else liveLocks.delete(event.path);
    } else if (event.op === 'create' && ![...liveLocks.values()].includes(event.sessionId)) {
      orphans.push(event);
    }
  }
  return orphans;
}

/**
 * What a granted acquisition must satisfy: every lease live (signal not aborted) and its node on
 * the server, owned by the client's current ZooKeeper session.
 */
async function expectAllLive(leases: readonly Lease[], owner: ZkSession, observer: ZkSession): Promise<void> {
  for (const lease of leases) {
    expect({ path: lease.path, aborted: lease.signal.aborted }).toEqual({ path: lease.path, aborted: false });
    const stat = await observer.exists(lease.path);
    expect({ path: lease.path, owner: stat?.ephemeralOwner }).toEqual({ path: lease.path, owner: owner.sessionIdBigInt });
  }
}

describe('curator layout: the lease is taken under the internal lock, again after a lost session', () => {
  it('a waiter that held the internal lock loses its session; a rival queues: when the holder releases, one of them takes the free lease at once, the other waits, and no lease node was ever created without the lock', async () => {
    const path = freshPath('lock-then-lease');
    const [holderSession, doomed, rivalSession, observer] = await Promise.all([connect(), connect(), connect(), connect()]);
    const locks = `${path}/locks`;
    const leases = `${path}/leases`;
    const log: NodeEvent[] = [];
    recordNodeEvents(doomed, path, log);
    recordNodeEvents(rivalSession, path, log);

    const held = await semaphore(holderSession, path, 1, 'curator').acquire();
    const waiter = track(semaphore(doomed, path, 1, 'curator').acquire({ timeoutMs: 12_000 }));
    await untilQueue(observer, leases, 2);
    await settledInWait(doomed); // it holds the internal lock and waits for the lease
    await expireAndReconnect(doomed);
    const rival = track(semaphore(rivalSession, path, 1, 'curator').acquire({ timeoutMs: 12_000 }));
    // Both wait again: whichever holds the internal lock has a lease node, the other a lock node.
    await untilTotal(observer, [locks, leases], 4);
    await settledInWait(doomed);
    await settledInWait(rivalSession);
    expect([brief(waiter.outcome), brief(rival.outcome)]).toEqual([{ state: 'pending' }, { state: 'pending' }]);

    await held.release();
    // A free lease with two clients waiting: one must take it as soon as it hears of the release,
    // long before their 12 s deadlines (the bound is generous: a session timeout and a second).
    const first = await within(Promise.race([waiter.settled, rival.settled]), SESSION_TIMEOUT_MS + 1000, 'a waiter to take the free lease');
    expect(brief(first)).toEqual({ state: 'resolved' });
    const [winner, loser] = waiter.outcome.state === 'resolved' ? [waiter, rival] : [rival, waiter];
    const winnerLease = (winner.outcome as { value: Lease }).value;
    await settledInWait(doomed);
    await settledInWait(rivalSession);
    expect(brief(loser.outcome)).toEqual({ state: 'pending' }); // one lease: the other still waits
    await expectAllLive([winnerLease], winner === waiter ? doomed : rivalSession, observer);

    await winnerLease.release();
    const second = await within(loser.settled, SESSION_TIMEOUT_MS + 1000, 'the other waiter to take the lease');
    expect(brief(second)).toEqual({ state: 'resolved' });
    await (second as { value: Lease }).value.release();

    expect(leaseCreatesWithoutLock(log)).toEqual([]);
    expect(await queueOf(observer, leases)).toEqual([]);
    expect(await queueOf(observer, locks)).toEqual([]);
  });
});

describe('curator layout: every lost session counts against the policy, over the whole acquisition', () => {
  it('retryNTimes(1): the step starts again after one lost session, not after two: RETRIES_EXHAUSTED (attempts 2), no node left', async () => {
    const path = freshPath('counted');
    const [holderSession, doomed, observer] = await Promise.all([connect(), connect(retryNTimes({ n: 1, sleepMs: 0 })), connect()]);
    const held = await semaphore(holderSession, path, 1, 'curator').acquire();
    const waiter = track(semaphore(doomed, path, 1, 'curator').acquire({ timeoutMs: 30_000 }));
    await untilQueue(observer, `${path}/leases`, 2);
    await settledInWait(doomed);
    await expireAndReconnect(doomed);
    await untilQueue(observer, `${path}/leases`, 2); // the step started again: lock, then lease
    await settledInWait(doomed);
    expect(brief(waiter.outcome)).toEqual({ state: 'pending' });
    await expireAndReconnect(doomed);
    const outcome = await within(waiter.settled, 10_000, 'the waiter to settle');
    expect(brief(outcome)).toMatchObject({ state: 'rejected', code: 'RETRIES_EXHAUSTED' });
    expect((outcome as { reason: { attempts: number; cause: { code: string } } }).reason).toMatchObject({ attempts: 2, cause: { code: 'SESSION_LOST' } });
    expect(await queueOf(observer, `${path}/leases`)).toEqual([held.path]);
    expect(await queueOf(observer, `${path}/locks`)).toEqual([]);
    await held.release();
  });
});

describe('acquireMany across a lost session: only live leases, or none', () => {
  it('curator layout: one lease granted and one waiting when the session is lost: it starts again on the next session and resolves only with live leases', async () => {
    const path = freshPath('many-restart');
    const [holderSession, doomed, observer] = await Promise.all([connect(), connect(), connect()]);
    const leases = `${path}/leases`;
    const log: NodeEvent[] = [];
    recordNodeEvents(doomed, path, log);
    const holder = await semaphore(holderSession, path, 3, 'curator').acquireMany(2);
    const pair = track(semaphore(doomed, path, 3, 'curator').acquireMany(2, { timeoutMs: 30_000 }));
    await untilQueue(observer, leases, 4); // the first of its two is granted, the second waits
    await settledInWait(doomed);
    await expireAndReconnect(doomed);
    // Started again: the first lease granted anew, the second waiting (or, wrongly, resolved).
    await Promise.race([pair.settled, untilQueue(observer, leases, 4)]);
    await settledInWait(doomed);
    if (pair.outcome.state === 'resolved') await expectAllLive(pair.outcome.value, doomed, observer);
    expect(brief(pair.outcome)).toEqual({ state: 'pending' });

    await holder[0]!.release();
    const granted = await within(pair.settled, 10_000, 'acquireMany to be granted');
    expect(brief(granted)).toEqual({ state: 'resolved' });
    const both = (granted as { value: Lease[] }).value;
    expect(both).toHaveLength(2);
    await expectAllLive(both, doomed, observer);
    expect(leaseCreatesWithoutLock(log)).toEqual([]);
    await Promise.all([...both, holder[1]!].map((lease) => lease.release()));
    expect(await queueOf(observer, leases)).toEqual([]);
  });

  it('curator layout: the deadline passes on the next session: rejects LOCK_TIMEOUT and leaves no node', async () => {
    const path = freshPath('many-timeout');
    const [holderSession, doomed, observer] = await Promise.all([connect(), connect(), connect()]);
    const holder = await semaphore(holderSession, path, 3, 'curator').acquireMany(2);
    const pair = track(semaphore(doomed, path, 3, 'curator').acquireMany(2, { timeoutMs: 8000 }));
    await untilQueue(observer, `${path}/leases`, 4);
    await settledInWait(doomed);
    await expireAndReconnect(doomed);
    const outcome = await within(pair.settled, 15_000, 'acquireMany to settle');
    if (outcome.state === 'resolved') await expectAllLive(outcome.value, doomed, observer);
    expect(brief(outcome)).toMatchObject({ state: 'rejected', code: 'LOCK_TIMEOUT' });
    // What it took on the next session is given back: waited for within the slack, the rest in the background.
    await untilQueue(observer, `${path}/leases`, holder.length);
    await untilQueue(observer, `${path}/locks`, 0);
    expect(await queueOf(observer, `${path}/leases`)).toEqual(holder.map((lease) => lease.path));
    expect(await queueOf(observer, `${path}/locks`)).toEqual([]);
    await Promise.all(holder.map((lease) => lease.release()));
  });

  it('curator layout: a policy that refuses a new session rejects RETRIES_EXHAUSTED (cause SESSION_LOST) and leaves no node', async () => {
    const path = freshPath('many-refused');
    const [holderSession, doomed, observer] = await Promise.all([connect(), connect(sessionFailedRetryPolicy(retryForever({ sleepMs: 10 }))), connect()]);
    const holder = await semaphore(holderSession, path, 3, 'curator').acquireMany(2);
    const pair = track(semaphore(doomed, path, 3, 'curator').acquireMany(2, { timeoutMs: 30_000 }));
    await untilQueue(observer, `${path}/leases`, 4);
    await settledInWait(doomed);
    await expireAndReconnect(doomed);
    const outcome = await within(pair.settled, 15_000, 'acquireMany to settle');
    expect(brief(outcome)).toMatchObject({ state: 'rejected', code: 'RETRIES_EXHAUSTED' });
    expect(((outcome as { reason: Error }).reason.cause as { code?: string }).code).toBe('SESSION_LOST');
    expect(await queueOf(observer, `${path}/leases`)).toEqual(holder.map((lease) => lease.path));
    expect(await queueOf(observer, `${path}/locks`)).toEqual([]);
    await Promise.all(holder.map((lease) => lease.release()));
  });

  it('queue layout: acquireMany is one node: waiting when the session is lost, it queues again and resolves with live leases', () =>
    throughProxy(async (proxy) => {
      const path = freshPath('many-queue');
      const [holderSession, doomed, observer] = await Promise.all([connect(), connect(undefined, proxy.connectString), connect()]);
      const holder = await semaphore(holderSession, path, 3, 'queue').acquireMany(2);
      const pair = track(semaphore(doomed, path, 3, 'queue').acquireMany(2, { timeoutMs: 30_000 }));
      await untilQueue(observer, path, 2);
      await settledInWait(doomed);
      await loseThroughPartition(doomed, proxy);
      await untilQueue(observer, path, 2); // queued again, on the next session
      await settledInWait(doomed);
      expect(brief(pair.outcome)).toEqual({ state: 'pending' });
      await Promise.all(holder.map((lease) => lease.release())); // their node goes with the last of them
      const granted = await within(pair.settled, 10_000, 'acquireMany to be granted');
      expect(brief(granted)).toEqual({ state: 'resolved' });
      const both = (granted as { value: Lease[] }).value;
      await expectAllLive(both, doomed, observer);
      await Promise.all(both.map((lease) => lease.release()));
      expect(await queueOf(observer, path)).toEqual([]);
    }));
});

describe('curator layout: a part lost to someone else before the whole is granted', () => {
  it('acquireMany: an operator deletes the lease already granted while the next one waits: rejects NODE_DELETED, leaves no node, resolves with no lost lease', async () => {
    const path = freshPath('many-part-deleted');
    const [holderSession, client, operatorSession] = await Promise.all([connect(), connect(), connect()]);
    const leases = `${path}/leases`;
    const holder = await semaphore(holderSession, path, 3, 'curator').acquireMany(2);
    const pair = track(semaphore(client, path, 3, 'curator').acquireMany(2, { timeoutMs: 30_000 }));
    const queue = await untilQueue(operatorSession, leases, 4);
    await settledInWait(client);
    await new Operator(operatorSession).deleteNode(queue[2]!); // the first lease of the pair, granted
    const outcome = await within(pair.settled, 10_000, 'acquireMany to settle');
    if (outcome.state === 'resolved') await expectAllLive(outcome.value, client, operatorSession);
    expect(brief(outcome)).toEqual({ state: 'rejected', code: 'NODE_DELETED', path: queue[2], typed: true });
    expect(await queueOf(operatorSession, leases)).toEqual(holder.map((lease) => lease.path));
    expect(await queueOf(operatorSession, `${path}/locks`)).toEqual([]);
    await Promise.all(holder.map((lease) => lease.release()));
  });

  it('acquire: an operator deletes the internal lock node while its lease waits: rejects NODE_DELETED and leaves no node (it no longer holds the lock its lease waits under)', async () => {
    const path = freshPath('lock-deleted');
    const [holderSession, client, operatorSession] = await Promise.all([connect(), connect(), connect()]);
    const held = await semaphore(holderSession, path, 1, 'curator').acquire();
    const waiter = track(semaphore(client, path, 1, 'curator').acquire({ timeoutMs: 30_000 }));
    await untilQueue(operatorSession, `${path}/leases`, 2);
    await settledInWait(client);
    const [lockNode] = await queueOf(operatorSession, `${path}/locks`);
    await new Operator(operatorSession).deleteNode(lockNode!);
    const outcome = await within(waiter.settled, 10_000, 'the waiter to be refused');
    expect(brief(outcome)).toEqual({ state: 'rejected', code: 'NODE_DELETED', path: lockNode, typed: true });
    expect(await queueOf(operatorSession, `${path}/leases`)).toEqual([held.path]);
    expect(await queueOf(operatorSession, `${path}/locks`)).toEqual([]);
    await held.release();
  });
});

describe('curator layout: a node of ours read as deleted as its session ends', () => {
  it('the internal lock node is deleted while the client is cut off one way, and the session is lost before the client could confirm it lives: the step starts again, it is not refused NODE_DELETED', () =>
    throughProxy(async (proxy) => {
      const path = freshPath('deleted-as-lost');
      const [holderSession, doomed, operatorSession] = await Promise.all([connect(), connect(undefined, proxy.connectString), connect()]);
      const held = await semaphore(holderSession, path, 1, 'curator').acquire();
      const waiter = track(semaphore(doomed, path, 1, 'curator').acquire({ timeoutMs: 30_000 }));
      await untilQueue(operatorSession, `${path}/leases`, 2);
      await settledInWait(doomed);
      const [lockNode] = await queueOf(operatorSession, `${path}/locks`);
      // The server hears nothing more from the client; the client still hears the server.
      proxy.holdRequests();
      const lost = new Promise<void>((resolve) => doomed.once('lost', () => resolve()));
      await new Operator(operatorSession).deleteNode(lockNode!); // read by the client, which cannot ask anything now
      await lost; // declared lost: no answer within the session timeout
      proxy.heal();
      await untilQueue(operatorSession, `${path}/leases`, 2); // started again: lock, then lease
      await settledInWait(doomed);
      expect(brief(waiter.outcome)).toEqual({ state: 'pending' });
      await held.release();
      const outcome = await within(waiter.settled, 10_000, 'the waiter to be granted');
      expect(brief(outcome)).toEqual({ state: 'resolved' });
      const lease = (outcome as { value: Lease }).value;
      await expectAllLive([lease], doomed, operatorSession);
      await lease.release();
    }));

});

