/**
 * LeaderLatch in one process against a real server: who leads, what its node looks like, how
 * leadership moves on close, and how each loss (an operator's delete, a forced expiry, a stall of
 * this process past the session timeout, the session's close) ends it before anyone else leads.
 */
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionFailedRetryPolicy, retryForever, ZkSession, type ZkSessionOptionsInput } from '@zk-recipes/core';
import { sessionInternals } from '@zk-recipes/core/internal';
import { ElectionClosedError, LeaderLatch, type Leadership } from '@zk-recipes/leader';
import { nextEvent } from './support/events.js';
import { childrenOf, expireSession, Operator, testConnectString, uniqueRoot, untilChildCount } from '@zk-recipes/testing';

const root = uniqueRoot('leader-latch');
const sessions: ZkSession[] = [];
let observer: ZkSession;
let operator: Operator;

async function connect(options: Partial<ZkSessionOptionsInput> = {}): Promise<ZkSession> {
  const session = await ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs: 4000, ...options });
  sessions.push(session);
  return session;
}

beforeAll(async () => {
  observer = await connect();
  operator = await Operator.connect(testConnectString());
});
afterAll(async () => {
  await operator.close();
  await Promise.all(sessions.map((s) => s.close()));
});

const children = (path: string) => childrenOf(observer, path);

/** Starts a latch per session on `path`, in order (each node created before the next starts). */
async function latches(path: string, count: number, ids = (i: number) => `p${i}`): Promise<LeaderLatch[]> {
  const made: LeaderLatch[] = [];
  for (let i = 0; i < count; i++) {
    const latch = new LeaderLatch(await connect(), path, { id: ids(i) });
    latch.start();
    made.push(latch);
    await untilChildCount(observer, path, i + 1);
  }
  return made;
}

describe('LeaderLatch', () => {
  it("leads alone: Curator's node name and data, the czxid as fencing token, isLeader, getLeader and getParticipants", async () => {
    const path = `${root}/alone`;
    const session = await connect();
    const latch = new LeaderLatch(session, path, { id: 'scheduler-a' });
    expect(latch.state).toBe('latent');
    const told = nextEvent(latch, 'isLeader');
    latch.start();
    const leadership = await latch.leadership();
    expect((await told)[0]).toBe(leadership);
    expect(latch.state).toBe('started');
    expect(leadership.node).toMatch(/\/_c_[0-9a-f-]{36}-latch-\d{10}$/);
    expect(leadership.path).toBe(path);
    expect(leadership.id).toBe('scheduler-a');
    expect(leadership.held).toBe(true);
    expect(latch.hasLeadership()).toBe(true);
    const { data, stat } = await observer.getData(leadership.node);
    expect(data.toString()).toBe('scheduler-a');
    expect(stat.czxid).toBe(leadership.fencingToken);
    expect(stat.ephemeralOwner).toBe(session.sessionIdBigInt);
    // Asked again while leading: the same term, at once.
    expect(await latch.leadership({ timeoutMs: 0 })).toBe(leadership);
    expect(await latch.getLeader()).toEqual({ id: 'scheduler-a', isLeader: true, node: leadership.node, owner: undefined, sessionId: session.sessionId });
    expect(await latch.getParticipants()).toHaveLength(1);
    await latch.close();
    expect(leadership.signal.aborted).toBe(true);
    expect(leadership.signal.reason).toBeInstanceOf(ElectionClosedError);
    expect(leadership.held).toBe(false);
    expect(latch.hasLeadership()).toBe(false);
    expect(latch.state).toBe('closed');
    expect(await children(path)).toEqual([]);
    expect(await latch.getLeader()).toBeUndefined();
  });

  it('one leader among three; each close hands leadership to the next in join order, with a larger fencing token', async () => {
    const path = `${root}/three`;
    const [a, b, c] = await latches(path, 3);
    const first = await a!.leadership();
    expect([a!.hasLeadership(), b!.hasLeadership(), c!.hasLeadership()]).toEqual([true, false, false]);
    const participants = await c!.getParticipants();
    expect(participants.map((p) => [p.id, p.isLeader])).toEqual([
      ['p0', true],
      ['p1', false],
      ['p2', false],
    ]);
    const bTold = nextEvent(b!, 'isLeader');
    await a!.close();
    const [second] = await bTold;
    expect(first.signal.aborted).toBe(true);
    expect(second.fencingToken).toBeGreaterThan(first.fencingToken);
    expect([b!.hasLeadership(), c!.hasLeadership()]).toEqual([true, false]);
    expect((await c!.getLeader())?.id).toBe('p1');
    await b!.close();
    const third = await c!.leadership({ timeoutMs: 10_000 });
    expect(third.fencingToken).toBeGreaterThan(second.fencingToken);
    await c!.close();
    expect(await children(path)).toEqual([]);
  });

  it('a wait that times out or is aborted leaves the latch in the election: it leads later', async () => {
    const path = `${root}/wait`;
    const [a, b] = await latches(path, 2);
    await a!.leadership();
    await expect(b!.leadership({ timeoutMs: 50 })).rejects.toMatchObject({ code: 'LEADERSHIP_TIMEOUT' });
    await expect(b!.leadership({ signal: AbortSignal.abort('enough') })).rejects.toMatchObject({ code: 'ABORTED', cause: 'enough' });
    expect(await children(path)).toHaveLength(2);
    const later = b!.leadership();
    await a!.close();
    expect((await later).id).toBe('p1');
    await b!.close();
  });

  it('outside the election: leadership() before start() and after close() rejects ELECTION_CLOSED; start() after close() throws; bad options INVALID_ARGUMENT', async () => {
    const session = await connect();
    const latch = new LeaderLatch(session, `${root}/outside`);
    await expect(latch.leadership()).rejects.toMatchObject({ code: 'ELECTION_CLOSED', message: expect.stringMatching(/not started/) });
    latch.start();
    latch.start(); // a started latch starts once
    const waiting = latch.leadership();
    await waiting;
    await latch.close();
    await latch.close(); // idempotent
    await expect(latch.leadership()).rejects.toMatchObject({ code: 'ELECTION_CLOSED' });
    expect(() => latch.start()).toThrow(ElectionClosedError);
    await expect(latch.leadership({ timeoutMs: -1 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(() => new LeaderLatch(session, `${root}/outside`, { id: 7 as unknown as string })).toThrow(/id/);
    expect(() => new LeaderLatch(session, `${root}/outside`, { closeMode: 'loud' as 'silent' })).toThrow(/closeMode/);
    expect(() => new LeaderLatch(session, '/')).toThrow(/election path/);
    // An id the server would refuse is refused here, before any node or directory is made.
    expect(() => new LeaderLatch(session, `${root}/too-big`, { id: 'x'.repeat(2_000_000) })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(await observer.exists(`${root}/too-big`)).toBeNull();
  });

  it('a closed waiter leaves no node; close() of a waiter rejects its pending leadership()', async () => {
    const path = `${root}/close-waiter`;
    const [a, b] = await latches(path, 2);
    await a!.leadership();
    const pending = expect(b!.leadership()).rejects.toMatchObject({ code: 'ELECTION_CLOSED' });
    await b!.close();
    await pending;
    expect(await children(path)).toHaveLength(1);
    await a!.close();
  });

  it("by default the id is this process's owner data: participants name their host and pid", async () => {
    const path = `${root}/owner`;
    const latch = new LeaderLatch(await connect({ label: 'scheduler' }), path);
    latch.start();
    const leadership = await latch.leadership();
    const [leader] = await latch.getParticipants();
    expect(leader!.owner).toMatchObject({ pid: process.pid, label: 'scheduler' });
    expect(leader!.id).toBe(latch.id);
    expect(JSON.parse(latch.id)).toMatchObject({ zkRecipes: 1, pid: process.pid, label: 'scheduler' });
    expect((await observer.getData(leadership.node)).data.toString()).toBe(latch.id);
    await latch.close();
  });

  it("ownerData: the id kept beside the owner data in the node's data; getParticipants and getLeader name both; the latch and its leadership keep the id", async () => {
    const path = `${root}/owner-beside-id`;
    const latch = new LeaderLatch(await connect({ label: 'scheduler' }), path, { id: 'scheduler-a', ownerData: true });
    const plain = new LeaderLatch(await connect(), path, { id: 'scheduler-b' });
    latch.start();
    await untilChildCount(observer, path, 1);
    plain.start();
    await untilChildCount(observer, path, 2);
    const leadership = await latch.leadership();
    expect([latch.id, leadership.id]).toEqual(['scheduler-a', 'scheduler-a']);
    const written = (await observer.getData(leadership.node)).data.toString();
    expect(written).toBe(`{"zkRecipes":1,"host":${JSON.stringify(hostname())},"pid":${process.pid},"label":"scheduler","id":"scheduler-a"}`);
    expect((await plain.getParticipants()).map((p) => [p.id, p.isLeader, p.owner])).toEqual([
      ['scheduler-a', true, { host: hostname(), pid: process.pid, label: 'scheduler' }],
      ['scheduler-b', false, undefined],
    ]);
    expect(await plain.getLeader()).toMatchObject({ id: 'scheduler-a', owner: { pid: process.pid } });
    await Promise.all([latch.close(), plain.close()]);
  });

  it("closeMode 'notify-leader' emits notLeader on close; 'silent' (the default) does not; the signal aborts either way", async () => {
    for (const closeMode of ['notify-leader', 'silent'] as const) {
      const latch = new LeaderLatch(await connect(), `${root}/close-mode-${closeMode}`, { closeMode });
      const told: Error[] = [];
      latch.on('notLeader', (reason) => told.push(reason));
      latch.start();
      const leadership = await latch.leadership();
      await latch.close();
      expect(leadership.signal.reason).toMatchObject({ code: 'ELECTION_CLOSED' });
      expect(told.map((e) => (e as { code?: string }).code)).toEqual(closeMode === 'silent' ? [] : ['ELECTION_CLOSED']);
    }
  });

  it("an operator deletes the leader's node: its signal aborts (NODE_DELETED), it rejoins at the end with a new node, the next participant leads", async () => {
    const path = `${root}/deleted`;
    const [a, b] = await latches(path, 2);
    const first = await a!.leadership();
    const notLeader = nextEvent(a!, 'notLeader');
    const bLeads = b!.leadership();
    await operator.deleteNode(first.node);
    expect((await notLeader)[0]).toMatchObject({ code: 'NODE_DELETED' });
    expect(first.signal.reason).toMatchObject({ code: 'NODE_DELETED' });
    const second = await bLeads;
    await untilChildCount(observer, path, 2);
    const nodes = await c(path);
    expect(nodes.map((p) => p.id)).toEqual(['p1', 'p0']);
    expect(nodes[1]!.node).not.toBe(first.node);
    expect(a!.hasLeadership()).toBe(false);
    const again = a!.leadership();
    await b!.close();
    expect((await again).fencingToken).toBeGreaterThan(second.fencingToken);
    await a!.close();
  });

  it("an operator deletes a waiter's node: it joins again", async () => {
    const path = `${root}/waiter-deleted`;
    const [a, b] = await latches(path, 2);
    await a!.leadership();
    const [, waiterNode] = await c(path);
    await operator.deleteNode(waiterNode!.node);
    await untilChildCount(observer, path, 2);
    const [, again] = await c(path);
    expect(again!.node).not.toBe(waiterNode!.node);
    expect(again!.id).toBe('p1');
    const next = b!.leadership();
    await a!.close();
    expect((await next).node).toBe(again!.node);
    await b!.close();
  });

  it("the leader's session expires: its signal aborts (SESSION_LOST, or NODE_DELETED if that news comes first), the next leads; it rejoins on its next session with a new node, never believing in the old one", async () => {
    const path = `${root}/expired`;
    const [a, b] = await latches(path, 2);
    const first = await a!.leadership();
    const bLeads = b!.leadership();
    const aSession = a!.session;
    await expireSession(testConnectString(), sessionInternals(aSession).credentials);
    // Expired from another connection, the session's end reaches A when it reconnects, which may
    // come after B's grant (the server deleted A's node first): wait for both, then look.
    const aborted = first.signal.aborted ? Promise.resolve() : new Promise((resolve) => first.signal.addEventListener('abort', resolve, { once: true }));
    const [second] = await Promise.all([bLeads, aborted]);
    expect(first.signal.aborted).toBe(true);
    // Told by whichever news comes first: the expiry (on reconnecting), or the deletion of its node
    // (the server deletes a session's ephemerals as it expires it; A's watch on its node may hear it
    // before its connection is closed).
    expect(['SESSION_LOST', 'NODE_DELETED'], String(first.signal.reason)).toContain((first.signal.reason as { code?: string }).code);
    expect(a!.hasLeadership()).toBe(false);
    // Back in the election on its next ZooKeeper session, behind the new leader.
    await untilChildCount(observer, path, 2);
    const nodes = await c(path);
    expect(nodes.map((p) => p.id)).toEqual(['p1', 'p0']);
    expect(nodes[1]!.sessionId).toBe(aSession.sessionId);
    expect(nodes[1]!.node).not.toBe(first.node);
    expect(a!.hasLeadership()).toBe(false);
    const again = a!.leadership();
    await b!.close();
    expect((await again).fencingToken).toBeGreaterThan(second.fencingToken);
    await a!.close();
  });

  it('this process stalls past its session timeout while leading: the first read of the signal sees it aborted, and hasLeadership() is false (no timer has run yet)', async () => {
    const path = `${root}/stalled`;
    const session = await connect({ sessionTimeoutMs: 2000 });
    const latch = new LeaderLatch(session, path, { id: 'stalled' });
    latch.start();
    const leadership = await latch.leadership();
    const stallUntil = performance.now() + session.negotiatedSessionTimeoutMs + 200;
    while (performance.now() < stallUntil) {
      // A stopped process, a long garbage collection: nothing runs.
    }
    // No timer could run: reading the signal checks the clock first (docs/leader.md).
    expect(leadership.signal.aborted).toBe(true);
    expect(latch.hasLeadership()).toBe(false);
    expect(leadership.signal.reason).toMatchObject({ code: 'SESSION_LOST' });
    // leadership() does not hand the old term out: it waits for the next one.
    const next = await latch.leadership({ timeoutMs: 20_000 });
    expect(next).not.toBe(leadership);
    expect(next.fencingToken).toBeGreaterThan(leadership.fencingToken);
    await latch.close();
  });

  it('the session is closed: the latch leaves the election, its leadership ends SESSION_CLOSED, and no error is emitted', async () => {
    const session = await ZkSession.connect({ connectString: testConnectString() });
    const latch = new LeaderLatch(session, `${root}/session-closed`);
    const errors: unknown[] = [];
    latch.on('error', (err) => errors.push(err));
    latch.start();
    const leadership = await latch.leadership();
    await session.close();
    await latch.close();
    expect(leadership.signal.reason).toMatchObject({ code: 'SESSION_CLOSED' });
    expect(latch.state).toBe('closed');
    await expect(latch.leadership()).rejects.toMatchObject({ code: 'SESSION_CLOSED' });
    expect(errors).toEqual([]);
  });

  it('a retry policy that refuses a lost session (sessionFailedRetryPolicy) ends the latch: error RETRIES_EXHAUSTED, closed', async () => {
    const session = await connect({ retryPolicy: sessionFailedRetryPolicy(retryForever({ sleepMs: 100 })) });
    const latch = new LeaderLatch(session, `${root}/policy`);
    latch.start();
    const leadership = await latch.leadership();
    const failed = nextEvent(latch, 'error');
    await expireSession(testConnectString(), sessionInternals(session).credentials);
    expect((await failed)[0]).toMatchObject({ code: 'RETRIES_EXHAUSTED', cause: { code: 'SESSION_LOST' } });
    expect(leadership.signal.reason).toMatchObject({ code: 'SESSION_LOST' });
    expect(latch.state).toBe('closed');
    await expect(latch.leadership()).rejects.toMatchObject({ code: 'RETRIES_EXHAUSTED' });
    await latch.close();
  });

  it('await using closes it', async () => {
    const path = `${root}/using`;
    {
      await using latch = new LeaderLatch(await connect(), path);
      latch.start();
      await latch.leadership();
      expect(await children(path)).toHaveLength(1);
    }
    expect(await children(path)).toEqual([]);
  });
});

/** The participants as the observer reads them. */
function c(path: string) {
  return new LeaderLatch(observer, path).getParticipants();
}
