/**
 * LeaderSelector in one process against a real server: a term runs the function while it leads,
 * our node goes only once the function returned, and every way a term ends (returned, threw,
 * interrupted, closed, the run's signal, the session lost) is told through the leadership signal.
 */
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZkSession } from '@zk-recipes/core';
import { sessionInternals } from '@zk-recipes/core/internal';
import { LeaderSelector, type Leadership } from '@zk-recipes/leader';
import { nextEvent } from './support/events.js';
import { childrenOf, expireSession, testConnectString, uniqueRoot, untilChildCount } from '@zk-recipes/testing';

const root = uniqueRoot('leader-selector');
const sessions: ZkSession[] = [];
let observer: ZkSession;

async function connect(sessionTimeoutMs = 4000): Promise<ZkSession> {
  const session = await ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs });
  sessions.push(session);
  return session;
}

beforeAll(async () => {
  observer = await connect();
});
afterAll(async () => {
  await Promise.all(sessions.map((s) => s.close()));
});

const children = (path: string) => childrenOf(observer, path);

/** A promise and the function that resolves it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('LeaderSelector', () => {
  it("runs the function while it leads, in Curator's mutex layout with the id as data, and deletes our node once it returned", async () => {
    const path = `${root}/once`;
    const session = await connect();
    const selector = new LeaderSelector(session, path, { id: 'worker-a' });
    const release = gate();
    let seen: Leadership | undefined;
    let ledWhileRunning = false;
    const run = selector.run(async (leadership) => {
      seen = leadership;
      ledWhileRunning = selector.hasLeadership();
      await release.opened;
    });
    await untilChildCount(observer, path, 1);
    await expect.poll(() => seen).toBeDefined();
    expect(seen!.node).toMatch(/\/_c_[0-9a-f-]{36}-lock-\d{10}$/);
    const { data, stat } = await observer.getData(seen!.node);
    expect(data.toString()).toBe('worker-a');
    expect(stat.czxid).toBe(seen!.fencingToken);
    expect(ledWhileRunning).toBe(true);
    expect((await selector.getLeader())?.id).toBe('worker-a');
    release.open();
    await run;
    // The term is over: its signal aborted (ABORTED: given up), our node's delete sent (read on the
    // selector's own session: ZooKeeper answers one session in order, so after that delete).
    expect(seen!.signal.reason).toMatchObject({ code: 'ABORTED' });
    expect(selector.hasLeadership()).toBe(false);
    expect(await childrenOf(session, path)).toEqual([]);
    // Another run is another term, with a larger fencing token.
    let token = 0n;
    await selector.run((leadership) => {
      token = leadership.fencingToken;
    });
    expect(token).toBeGreaterThan(seen!.fencingToken);
    await selector.close();
  });

  it('ownerData: the id kept beside the owner data in the node; the leader is named by both', async () => {
    const path = `${root}/owner-beside-id`;
    const selector = new LeaderSelector(await connect(), path, { id: 'worker-a', ownerData: true });
    await selector.run(async (leadership) => {
      expect(leadership.id).toBe('worker-a');
      expect(JSON.parse((await observer.getData(leadership.node)).data.toString())).toEqual({ zkRecipes: 1, host: hostname(), pid: process.pid, id: 'worker-a' });
      expect(await selector.getLeader()).toMatchObject({ id: 'worker-a', owner: { host: hostname(), pid: process.pid } });
    });
    await selector.close();
  });

  it("a second participant's function runs only after the first one's returned", async () => {
    const path = `${root}/two`;
    const first = new LeaderSelector(await connect(), path, { id: 'a' });
    const second = new LeaderSelector(await connect(), path, { id: 'b' });
    const events: string[] = [];
    const release = gate();
    const a = first.run(async () => {
      events.push('a starts');
      await release.opened;
      events.push('a ends');
    });
    await untilChildCount(observer, path, 1);
    const b = second.run(() => {
      events.push('b starts');
    });
    await untilChildCount(observer, path, 2);
    expect(events).toEqual(['a starts']);
    release.open();
    await Promise.all([a, b]);
    expect(events).toEqual(['a starts', 'a ends', 'b starts']);
    await Promise.all([first.close(), second.close()]);
  });

  it('a function that throws: the run rejects with it, after leadership was given up', async () => {
    const path = `${root}/throws`;
    const selector = new LeaderSelector(await connect(), path);
    const boom = new Error('boom');
    await expect(
      selector.run(() => {
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(await childrenOf(selector.session, path)).toEqual([]); // on its session: after its delete
    await selector.close();
  });

  it('autoRequeue: terms alternate between two participants until close(), which resolves the run', async () => {
    const path = `${root}/requeue`;
    const order: string[] = [];
    const selectors = await Promise.all(['a', 'b'].map(async (id) => new LeaderSelector(await connect(), path, { id, autoRequeue: true })));
    const runs = selectors.map((selector) =>
      selector.run(async (leadership) => {
        order.push(leadership.id);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }),
    );
    await expect.poll(() => order.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(6);
    await Promise.all(selectors.map((s) => s.close()));
    await Promise.all(runs);
    // FIFO: each requeues behind the other.
    for (let i = 1; i < 6; i++) expect(order[i]).not.toBe(order[i - 1]);
    expect(await children(path)).toEqual([]);
  });

  it('autoRequeue: a throw while leading is emitted as error, and the selector joins again', async () => {
    const path = `${root}/requeue-throws`;
    const selector = new LeaderSelector(await connect(), path, { autoRequeue: true });
    const errors: unknown[] = [];
    selector.on('error', (err) => errors.push(err));
    let terms = 0;
    const run = selector.run(() => {
      terms++;
      if (terms === 1) throw new Error('first term fails');
    });
    await expect.poll(() => terms).toBeGreaterThanOrEqual(3);
    await selector.close();
    await run;
    expect(errors).toEqual([expect.objectContaining({ message: 'first term fails' })]);
  });

  it('interruptLeadership() aborts the signal (ABORTED); our node stays until the function returns', async () => {
    const path = `${root}/interrupt`;
    const selector = new LeaderSelector(await connect(), path);
    expect(selector.interruptLeadership()).toBe(false);
    const returned = gate();
    let node = '';
    const run = selector.run(async (leadership) => {
      node = leadership.node;
      await new Promise((resolve) => leadership.signal.addEventListener('abort', resolve, { once: true }));
      expect(leadership.signal.reason).toMatchObject({ code: 'ABORTED', message: expect.stringMatching(/interrupted/) });
      await returned.opened;
    });
    await expect.poll(() => node).not.toBe('');
    expect(selector.interruptLeadership()).toBe(true);
    expect(selector.hasLeadership()).toBe(false);
    // Still our node: nobody else may be elected while the function runs.
    expect(await observer.exists(node)).not.toBeNull();
    returned.open();
    await run;
    expect(await selector.session.exists(node)).toBeNull(); // on its session: after its delete
    await selector.close();
  });

  it('close() during a term aborts its signal (ELECTION_CLOSED) and resolves once the function returned and our node is gone', async () => {
    const path = `${root}/close`;
    const selector = new LeaderSelector(await connect(), path);
    const returned = gate();
    let leadership: Leadership | undefined;
    const run = selector.run(async (l) => {
      leadership = l;
      await returned.opened;
    });
    await expect.poll(() => leadership).toBeDefined();
    let closed = false;
    const closing = selector.close().then(() => (closed = true));
    expect(leadership!.signal.reason).toMatchObject({ code: 'ELECTION_CLOSED' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(false);
    expect(await children(path)).toHaveLength(1);
    returned.open();
    await closing;
    await run;
    expect(await children(path)).toEqual([]);
    await expect(selector.run(() => undefined)).rejects.toMatchObject({ code: 'ELECTION_CLOSED' });
  });

  it("the run's signal: before a term the run rejects ABORTED; during one, with autoRequeue, it ends the term and the run resolves", async () => {
    const path = `${root}/signal`;
    const holder = new LeaderSelector(await connect(), path);
    const release = gate();
    const held = holder.run(() => release.opened);
    await untilChildCount(observer, path, 1);
    const waiter = new LeaderSelector(await connect(), path);
    const controller = new AbortController();
    const waiting = waiter.run(() => undefined, { signal: controller.signal });
    await untilChildCount(observer, path, 2);
    controller.abort('stop');
    await expect(waiting).rejects.toMatchObject({ code: 'ABORTED', cause: 'stop' });
    await untilChildCount(observer, path, 1); // its delete, sent before it settled
    expect(await children(path)).toHaveLength(1);
    release.open();
    await held;

    const requeuing = new LeaderSelector(await connect(), path, { autoRequeue: true });
    const stop = new AbortController();
    const reasons: unknown[] = [];
    const run = requeuing.run(
      async (leadership) => {
        await new Promise((resolve) => leadership.signal.addEventListener('abort', resolve, { once: true }));
        reasons.push(leadership.signal.reason);
      },
      { signal: stop.signal },
    );
    await untilChildCount(observer, path, 1);
    await expect.poll(() => requeuing.hasLeadership()).toBe(true);
    stop.abort('enough');
    await run;
    expect(reasons).toEqual([expect.objectContaining({ code: 'ABORTED', cause: 'enough' })]);
    expect(await childrenOf(requeuing.session, path)).toEqual([]); // on its session: after its delete
    await Promise.all([holder.close(), waiter.close(), requeuing.close()]);
  });

  it('timeoutMs: LEADERSHIP_TIMEOUT and no node left; one run at a time (INVALID_ARGUMENT); bad arguments rejected', async () => {
    const path = `${root}/timeout`;
    const holder = new LeaderSelector(await connect(), path);
    const release = gate();
    const held = holder.run(() => release.opened);
    await untilChildCount(observer, path, 1);
    await expect(holder.run(() => undefined)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/already running/) });
    const waiter = new LeaderSelector(await connect(), path);
    await expect(waiter.run(() => undefined, { timeoutMs: 100 })).rejects.toMatchObject({ code: 'LEADERSHIP_TIMEOUT' });
    await untilChildCount(observer, path, 1); // its delete, sent before it settled
    expect(await children(path)).toHaveLength(1);
    await expect(waiter.run('fn' as unknown as () => void)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(waiter.run(() => undefined, { timeoutMs: Number.NaN })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(() => new LeaderSelector(observer, path, { autoRequeue: 'yes' as unknown as boolean })).toThrow(/autoRequeue/);
    release.open();
    await held;
    await Promise.all([holder.close(), waiter.close()]);
  });

  it('the session expires during a term: the signal aborts SESSION_LOST and notLeader is emitted; with autoRequeue the selector leads again on its next session', async () => {
    const path = `${root}/expired`;
    const session = await connect();
    const selector = new LeaderSelector(session, path, { autoRequeue: true });
    const terms: Leadership[] = [];
    const lost = nextEvent(selector, 'notLeader');
    const run = selector.run(async (leadership) => {
      terms.push(leadership);
      await new Promise((resolve) => leadership.signal.addEventListener('abort', resolve, { once: true }));
    });
    await expect.poll(() => terms.length).toBe(1);
    await expireSession(testConnectString(), sessionInternals(session).credentials);
    expect((await lost)[0]).toMatchObject({ code: 'SESSION_LOST' });
    expect(terms[0]!.signal.reason).toMatchObject({ code: 'SESSION_LOST' });
    await expect.poll(() => terms.length, { timeout: 15_000 }).toBe(2);
    expect(terms[1]!.fencingToken).toBeGreaterThan(terms[0]!.fencingToken);
    expect(terms[1]!.node).not.toBe(terms[0]!.node);
    await selector.close();
    await run;
  });
});
