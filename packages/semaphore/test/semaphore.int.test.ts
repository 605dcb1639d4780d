import { ZkSession } from '@zk-recipes/core';
import { expireSession, FaultProxy, pollUntil, serverWatchedPaths, testConnectString, uniqueRoot, untilChildCount } from '@zk-recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InterProcessSemaphore, SharedCount, type Lease } from '../src/index.js';
import { sessionInternals } from '@zk-recipes/core/internal';
import { jitterMs, PROMISED_SLACK_MS } from '../../core/test/support/stalledServer.js';
import { expectTimely } from '../../core/test/support/timeBound.js';

// ZooKeeper's CREATE2 opcode: what ZkSession sends for an ephemeral-sequential create.
const OP_CREATE2 = 15;
const OP_GET_DATA = 4;

const root = uniqueRoot('semaphore');
const sessions: ZkSession[] = [];
let main: ZkSession;

async function connect(connectString = testConnectString()): Promise<ZkSession> {
  const session = await ZkSession.connect({ connectString, sessionTimeoutMs: 4000 });
  sessions.push(session);
  return session;
}

interface WakeUps {
  /** Watch notifications delivered (each one wakes the waiting process up). */
  count: number;
  /** Paths of the data watches this session set, in order (one entry per watch set). */
  watchesSet: string[];
}

/** Counts the watch notifications a session delivers, and notes the data watches it sets. */
function countWakeUps(session: ZkSession): WakeUps {
  const counter: WakeUps = { count: 0, watchesSet: [] };
  // The engine's watchers → the counting wrappers given to the session in their place.
  const wrapped = new Map<unknown, (event: unknown) => void>();
  // The engine sets its node watches with the `...IfExists` reads (a node already gone answers null).
  for (const method of ['getChildren', 'getData', 'exists', 'getChildrenIfExists', 'getDataIfExists'] as const) {
    const original = session[method].bind(session) as (path: string, watcher?: (event: unknown) => void) => Promise<unknown>;
    (session as unknown as Record<string, unknown>)[method] = (path: string, watcher?: (event: unknown) => void) => {
      let counting: ((event: unknown) => void) | undefined;
      if (watcher !== undefined) {
        counting = (event: unknown) => {
          counter.count++;
          watcher(event);
        };
        wrapped.set(watcher, counting);
      }
      const reply = original(path, counting);
      // A node's watch: a data watch (getData) or a deletion-only child watch (getChildren).
      if (method !== 'exists' && watcher !== undefined) void reply.then((value) => value !== null && counter.watchesSet.push(path), () => undefined);
      return reply;
    };
  }
  // The engine gives watches up with the watcher it set them with: hand the session ours.
  for (const giveUp of ['unwatch', 'removeWatches'] as const) {
    const original = session[giveUp].bind(session);
    session[giveUp] = (path, watcher) => original(path, (wrapped.get(watcher) as typeof watcher | undefined) ?? watcher);
  }
  return counter;
}

/** Resolves once `counter` has set a watch on `path` after its first `since` watches. */
function untilWatched(counter: WakeUps, path: string, since: number): Promise<void> {
  return until(() => counter.watchesSet.slice(since).includes(path));
}

/** Resolves with what `promise` rejects with (undefined if it resolves): a failure to inspect later. */
/** Runs `body` with a FaultProxy in front of the test server, closed afterwards. */
async function throughProxy(body: (proxy: FaultProxy) => Promise<void>): Promise<void> {
  const [host, port] = testConnectString().split(',')[0]!.split(':');
  const proxy = await FaultProxy.start({ targetHost: host, targetPort: Number(port) });
  try {
    await body(proxy);
  } finally {
    await proxy.close();
  }
}

function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (err: unknown) => err,
  );
}

/** Resolves once `condition()` holds (checked after each turn of the event loop). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

/** Resolves once the semaphore lists `n` participant nodes (a waiter's node is in place). */
async function untilParticipants(sem: InterProcessSemaphore, n: number): Promise<string[]> {
  for (;;) {
    const nodes = await sem.getParticipantNodes();
    if (nodes.length === n) return nodes;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

beforeAll(async () => {
  main = await connect();
});

afterAll(async () => {
  await Promise.all(sessions.map((s) => s.close().catch(() => undefined)));
});

describe('InterProcessSemaphore (queue layout)', () => {
  it('grants maxLeases leases, refuses the next, and hands a released lease to the next waiter', async () => {
    const sem = new InterProcessSemaphore(main, `${root}/basic`, { maxLeases: 2 });
    const a = await sem.acquire();
    const b = await sem.acquire();
    expect(await sem.tryAcquire()).toBeNull();
    const waiting = sem.acquire();
    await untilParticipants(sem, 3);
    await a.release();
    const c = await waiting;
    expect(await sem.getParticipantNodes()).toEqual([b.path, c.path]);
    await expect(a.release()).rejects.toMatchObject({ code: 'NOT_OWNER' });
    await b.release();
    await c.release();
    expect(await sem.getParticipantNodes()).toEqual([]);
  });

  it("bytes given as data are the semaphore's own: a caller who reuses its buffer afterwards does not change what is written", async () => {
    const bytes = Buffer.from('host-a');
    const sem = new InterProcessSemaphore(main, `${root}/own-bytes`, { maxLeases: 1, data: bytes });
    bytes.write('XXXXXX');
    const lease = await sem.acquire();
    expect((await main.getData(lease.path)).data.toString()).toBe('host-a');
    await lease.release();
  });

  it('releases a lease by `await using`', async () => {
    const sem = new InterProcessSemaphore(main, `${root}/using`, { maxLeases: 1 });
    {
      await using lease = await sem.acquire();
      expect(lease.held).toBe(true);
      expect(await sem.tryAcquire()).toBeNull();
    }
    const again = await sem.tryAcquire();
    expect(again).not.toBeNull();
    await again!.release();
  });

  it('acquireMany gives an array `await using` disposes: every lease still held is released at the end of the scope', async () => {
    const path = `${root}/leases-using`;
    const sem = new InterProcessSemaphore(main, path, { maxLeases: 3 });
    {
      await using leases = await sem.acquireMany(2);
      expect(leases).toHaveLength(2);
      expect((await sem.getParticipantNodes()).length).toBe(1); // one node carries both
      await leases[0]!.release(); // an explicit release of one: the scope's end releases the rest
      expect(leases.map((lease) => lease.held)).toEqual([false, true]);
    }
    expect(await sem.getParticipantNodes()).toEqual([]);
    const again = await sem.acquireMany(3);
    await again.release();
    expect(again.every((lease) => !lease.held)).toBe(true);
    await again[Symbol.asyncDispose](); // nothing held: no error
    expect(await sem.getParticipantNodes()).toEqual([]);
    const tried = await sem.tryAcquireMany(3);
    expect(tried).not.toBeNull();
    expect(await sem.tryAcquireMany(1)).toBeNull();
    await tried!.release();
  });

  it('withLock runs its function with a lease and always releases it: on return and on a throw', async () => {
    const path = `${root}/with-lock`;
    const sem = new InterProcessSemaphore(main, path, { maxLeases: 1 });
    const seen = await sem.withLock(async (lease) => {
      expect(lease.held).toBe(true);
      expect(await sem.getParticipantNodes()).toEqual([lease.path]);
      return lease.path;
    });
    expect(await sem.getParticipantNodes()).toEqual([]);
    expect(seen.startsWith(`${path}/`)).toBe(true);
    await expect(sem.withLock(() => Promise.reject(new Error('inside')))).rejects.toThrow('inside');
    expect(await sem.getParticipantNodes()).toEqual([]);
    // The lease is free again for another process's client.
    const other = new InterProcessSemaphore(await connect(), path, { maxLeases: 1 });
    await (await other.acquire({ timeoutMs: 5000 })).release();
  });

  it('rejects a client whose maxLeases disagrees with the recorded one', async () => {
    const path = `${root}/inconsistent`;
    const first = await new InterProcessSemaphore(main, path, { maxLeases: 3 }).acquire();
    await expect(new InterProcessSemaphore(main, path, { maxLeases: 4 }).acquire()).rejects.toMatchObject({
      code: 'INCONSISTENT_MAX_LEASES',
    });
    // The record lives as long as the directory: a later client is refused while anyone is in it
    // (semaphoreDirectory.int.test.ts shows what happens once the server removes an idle one).
    // (With a deadline a busy machine can meet: a 0 ms try may end within its 50 ms slack, before the record is read.)
    await expect(new InterProcessSemaphore(main, path, { maxLeases: 2 }).tryAcquire({ timeoutMs: 10_000 })).rejects.toMatchObject({
      code: 'INCONSISTENT_MAX_LEASES',
    });
    await first.release();
  });

  it('acquireMany(n) holds n leases backed by one node, deleted with the last release', async () => {
    const sem = new InterProcessSemaphore(main, `${root}/many`, { maxLeases: 3 });
    const leases = await sem.acquireMany(3);
    expect(leases).toHaveLength(3);
    expect(new Set(leases.map((l) => l.path)).size).toBe(1);
    expect(await sem.tryAcquire()).toBeNull();
    await untilParticipants(sem, 1); // the try's node: its delete, sent before it settled or once its create's reply came (docs/architecture.md, "Deadlines")
    await leases[0]!.release();
    await leases[1]!.release();
    expect(await sem.getParticipantNodes()).toHaveLength(1);
    await leases[2]!.release();
    expect(await sem.getParticipantNodes()).toEqual([]);
    await expect(sem.acquireMany(4)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it.each(['queue', 'curator'] as const)('acquireMany cannot deadlock (layout %s): two clients asking for more than half both complete, never together', async (layout) => {
    const path = `${root}/no-deadlock-${layout}`;
    const clients = [new InterProcessSemaphore(await connect(), path, { maxLeases: 3, layout }), new InterProcessSemaphore(await connect(), path, { maxLeases: 3, layout })];
    const single = new InterProcessSemaphore(main, path, { maxLeases: 3, layout });
    // One lease taken first, so that neither request for two fits at once beside the other.
    const blocker = await single.acquire();
    let together = 0;
    let holding = 0;
    const rounds = clients.map(async (sem) => {
      for (let i = 0; i < 5; i++) {
        const leases = await sem.acquireMany(2, { timeoutMs: 20_000 });
        holding++;
        together = Math.max(together, holding);
        await new Promise((resolve) => setImmediate(resolve));
        holding--;
        await Promise.all(leases.map((l) => l.release()));
      }
    });
    await untilParticipants(single, 3);
    await blocker.release();
    await Promise.all(rounds);
    expect(together).toBe(1);
    expect(await single.getParticipantNodes()).toEqual([]);
  });

  it('is FIFO: a request for many at the head is not overtaken by single leases behind it', async () => {
    const sem = new InterProcessSemaphore(main, `${root}/fifo`, { maxLeases: 3 });
    const first = await sem.acquire();
    const order: string[] = [];
    const big = sem.acquireMany(3).then((l) => (order.push('big'), l));
    await untilParticipants(sem, 2);
    const small = sem.acquire().then((l) => (order.push('small'), l));
    await untilParticipants(sem, 3);
    await first.release();
    const bigLeases = await big;
    expect(order).toEqual(['big']);
    await Promise.all(bigLeases.map((l) => l.release()));
    await (await small).release();
    expect(order).toEqual(['big', 'small']);
  });

  it('leaves no node behind on timeout or abort', async () => {
    const sem = new InterProcessSemaphore(main, `${root}/leak-timeout`, { maxLeases: 1 });
    const holder = await sem.acquire();
    await expect(sem.acquire({ timeoutMs: 150 })).rejects.toMatchObject({ code: 'LOCK_TIMEOUT' });
    // Each failed node goes with its delete, sent before it settled or once its create's reply came (docs/architecture.md, "Deadlines"): wait for that, then exactly the holder's.
    expect(await untilParticipants(sem, 1)).toEqual([holder.path]);
    expect(await sem.tryAcquire({ timeoutMs: 100 })).toBeNull();
    expect(await untilParticipants(sem, 1)).toEqual([holder.path]);

    const controller = new AbortController();
    const waiting = sem.acquireMany(1, { signal: controller.signal });
    await untilParticipants(sem, 2);
    controller.abort(new Error('no longer needed'));
    await expect(waiting).rejects.toMatchObject({ code: 'ABORTED' });
    expect(await sem.getParticipantNodes()).toEqual([holder.path]);
    await holder.release();
  });

  it('a waiter whose session is lost leaves no node behind and enqueues again on the next one; a holder learns of the loss through its lease signal', async () => {
    const path = `${root}/leak-session`;
    const sem = new InterProcessSemaphore(main, path, { maxLeases: 1 });
    const holder = await sem.acquire();
    const doomed = await connect();
    const doomedSem = new InterProcessSemaphore(doomed, path, { maxLeases: 1 });
    const waiting = doomedSem.acquire();
    await untilParticipants(sem, 2);
    const [, oldWaiter] = await sem.getParticipantNodes();
    await expireSession(testConnectString(), sessionInternals(doomed).credentials);
    await pollUntil(async () => {
      const nodes = await sem.getParticipantNodes();
      return nodes.length === 2 && !nodes.includes(oldWaiter!);
    }, 10_000, 'the waiter to enqueue again on its next session');
    await holder.release();
    const lease = await waiting;
    expect(await sem.getParticipantNodes()).toEqual([lease.path]);

    // A holder learns of the loss through its lease's signal.
    const lost = new Promise((resolve) => lease.signal.addEventListener('abort', resolve, { once: true }));
    await expireSession(testConnectString(), sessionInternals(doomed).credentials);
    await lost;
    await lease.release(); // does not throw for a lost lease
    expect(await sem.getParticipantNodes()).toEqual([]);
  });

  it('leaves no orphan when the reply to the create is lost to a connection drop', async () => {
    const [host, port] = testConnectString().split(',')[0]!.split(':');
    const proxy = await FaultProxy.start({ targetHost: host, targetPort: Number(port) });
    try {
      const session = await connect(proxy.connectString);
      const sem = new InterProcessSemaphore(session, `${root}/leak-lost-reply`, { maxLeases: 2 });
      await sem.tryAcquire().then((l) => l?.release()); // creates the directory with maxLeases: the next create is the lease
      const cut = proxy.cutAfterNextRequest(OP_CREATE2);
      const acquiring = sem.acquire({ timeoutMs: 20_000 });
      await cut;
      const lease = await acquiring;
      // Exactly one node: the one the lost create made, adopted by GUID.
      expect(await new InterProcessSemaphore(main, `${root}/leak-lost-reply`, { maxLeases: 2 }).getParticipantNodes()).toEqual([lease.path]);
      await lease.release();
      expect(await sem.getParticipantNodes()).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it.each(['queue', 'curator'] as const)(
    '%s layout: a connection cut at the maxLeases check is retried, not reported: the lease is granted',
    (layout) =>
      throughProxy(async (proxy) => {
        const path = `${root}/${layout}-max-leases-cut`;
        const sem = new InterProcessSemaphore(await connect(proxy.connectString), path, { maxLeases: 2, layout });
        // The first acquisition reads the recorded maxLeases once its lease node and listing are answered.
        const cut = proxy.cutAfterNextRequest(OP_GET_DATA);
        const acquiring = sem.acquire({ timeoutMs: 20_000 });
        await cut;
        const lease = await acquiring;
        expect(await new InterProcessSemaphore(main, path, { maxLeases: 2, layout }).getParticipantNodes()).toEqual([lease.path]);
        await lease.release();
      }),
  );

  it('an abort while the create is in flight: rejects within the slack, and the node the create makes once delivered is deleted', async () => {
    const [host, port] = testConnectString().split(',')[0]!.split(':');
    const proxy = await FaultProxy.start({ targetHost: host, targetPort: Number(port) });
    try {
      const path = `${root}/leak-in-flight`;
      const through = await connect(proxy.connectString);
      const sem = new InterProcessSemaphore(through, path, { maxLeases: 1 });
      await sem.tryAcquire().then((l) => l?.release()); // creates the directory with maxLeases: the next create is the lease
      void proxy.blackhole(); // the create is held until the abort has been told, then delivered and answered
      const started = performance.now();
      const failure = failureOf(sem.acquire({ signal: AbortSignal.timeout(100) }));
      expect(await failure).toMatchObject({ code: 'ABORTED' });
      const settledMs = performance.now() - started;
      proxy.heal();
      expect(settledMs, `time bound: settled ${settledMs} ms after the call, the abort at 100 ms`).toBeLessThan(100 + PROMISED_SLACK_MS + jitterMs());
      await through.exists(path); // answered after the held create: applied by now
      await untilChildCount(main, path, 0); // and its node deleted, in the background (docs/architecture.md, "Deadlines")
      expect(await new InterProcessSemaphore(main, path, { maxLeases: 1 }).getParticipantNodes()).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it('hands freed leases on at once: three releases together admit the three first waiters while the rest wait', async () => {
    const path = `${root}/prompt`;
    const sem = new InterProcessSemaphore(main, path, { maxLeases: 3 });
    const holders = await Promise.all([sem.acquire(), sem.acquire(), sem.acquire()]);
    const waiterSessions = await Promise.all(Array.from({ length: 6 }, () => connect()));
    const waiters: Array<Promise<Lease>> = [];
    for (const [i, session] of waiterSessions.entries()) {
      waiters.push(new InterProcessSemaphore(session, path, { maxLeases: 3 }).acquire());
      await untilParticipants(sem, 4 + i); // enqueue in a known order
    }
    const granted: number[] = [];
    waiters.forEach((w, i) => void w.then(() => granted.push(i)));
    const released = performance.now();
    await Promise.all(holders.map((h) => h.release()));
    const firstThree = await Promise.all(waiters.slice(0, 3));
    const latencyMs = performance.now() - released;
    expect(granted.sort()).toEqual([0, 1, 2]);
    expectTimely('the first three waiters granted after the releases', latencyMs, 2000);
    await Promise.all(firstThree.map((l) => l.release()));
    await Promise.all((await Promise.all(waiters.slice(3))).map((l) => l.release()));
  });

  const ORDERS = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
  ];
  it.each(ORDERS)('holders released in the order %i, %i, %i admit the waiters first come first served, one per release, and write nothing to a lease node', async (...order) => {
    const path = `${root}/order-${order.join('')}`;
    const sem = new InterProcessSemaphore(main, path, { maxLeases: 3 });
    const holders = await Promise.all([sem.acquire(), sem.acquire(), sem.acquire()]);
    const holderOf = new Map(holders.map((lease) => [lease.path, lease]));
    const ordered = (await sem.getParticipantNodes()).map((node) => holderOf.get(node)!);
    const waiterSessions = await Promise.all(Array.from({ length: 4 }, () => connect()));
    const waiters: Array<Promise<Lease>> = [];
    const granted: number[] = [];
    for (const [i, session] of waiterSessions.entries()) {
      const waiting = new InterProcessSemaphore(session, path, { maxLeases: 3 }).acquire();
      void waiting.then(() => granted.push(i));
      waiters.push(waiting);
      await untilParticipants(sem, 4 + i); // enqueued in a known order
    }
    for (const [k, holder] of order.entries()) {
      await ordered[holder]!.release();
      await waiters[k]; // waiter k was the first waiter: this release admits it
      // Every waiter has handled what the server told it before this round trip's answer.
      await Promise.all(waiterSessions.map((session) => session.exists(path)));
      await new Promise((resolve) => setImmediate(resolve));
      expect(granted.slice().sort(), `exclusion: after ${k + 1} releases only the first ${k + 1} waiters may hold`).toEqual(Array.from({ length: k + 1 }, (_, j) => j));
    }
    // A lease node is written once, at its create: every version is still 0.
    for (const node of await sem.getParticipantNodes()) expect((await main.exists(node))?.version).toBe(0);
    const admitted = await Promise.all(waiters.slice(0, 3));
    await Promise.all(admitted.map((lease) => lease.release()));
    await (await waiters[3]!).release();
    expect(await sem.getParticipantNodes()).toEqual([]);
  });

  it('a release wakes at most maxLeases processes, an arrival nobody', async () => {
    const path = `${root}/herd`;
    const maxLeases = 2;
    const sem = new InterProcessSemaphore(main, path, { maxLeases });
    const holders = [await sem.acquire(), await sem.acquire()];
    const waiterCount = 6;
    const counters: WakeUps[] = [];
    const waiterSessions: ZkSession[] = [];
    const waiters: Array<Promise<Lease>> = [];
    const total = () => counters.reduce((sum, c) => sum + c.count, 0);
    /** Every waiter session has handled what the server told it before now. */
    const drained = async (): Promise<void> => {
      await Promise.all(waiterSessions.map((each) => each.exists(root)));
      await new Promise((resolve) => setImmediate(resolve));
    };
    for (let i = 0; i < waiterCount; i++) {
      const session = await connect();
      const counter = countWakeUps(session);
      counters.push(counter);
      waiterSessions.push(session);
      const before = total();
      waiters.push(new InterProcessSemaphore(session, path, { maxLeases }).acquire());
      await untilParticipants(sem, maxLeases + 1 + i);
      await until(() => counter.watchesSet.length > maxLeases); // its own node and its proof watched
      await drained();
      expect(total(), 'an arrival woke a waiter').toBe(before);
    }
    // Releases one by one, oldest first, holders and then the admitted waiters.
    const leases: Lease[] = [...holders];
    const perRelease: number[] = [];
    for (let i = 0; i < waiterCount; i++) {
      const before = total();
      await leases.shift()!.release();
      leases.push(await waiters[i]!);
      await drained();
      perRelease.push(total() - before);
    }
    await Promise.all(leases.map((lease) => lease.release()));
    expect(Math.max(...perRelease), `notifications per release: ${perRelease.join(', ')}`).toBeLessThanOrEqual(maxLeases);
  });

  it('a waiter that gives up removes its watches from the server: the holders it watched wake nobody', async () => {
    const path = `${root}/gives-up`;
    const sem = new InterProcessSemaphore(main, path, { maxLeases: 2 });
    const [a, b] = await Promise.all([sem.acquire(), sem.acquire()]);
    const session = await connect();
    const counter = countWakeUps(session);
    const controller = new AbortController();
    const waiting = failureOf(new InterProcessSemaphore(session, path, { maxLeases: 2 }).acquire({ signal: controller.signal }));
    await untilWatched(counter, a!.path, 0);
    await untilWatched(counter, b!.path, 0);
    controller.abort();
    expect(await waiting).toMatchObject({ code: 'ABORTED' });
    await session.exists(root); // the removals, sent before, are answered first
    const left = await serverWatchedPaths(testConnectString(), session.sessionIdBigInt);
    expect([...left].filter((p) => p.startsWith(path))).toEqual([]);
    await Promise.all([a!.release(), b!.release()]);
    await session.exists(root); // a deletion's notification, had it been sent, came before this reply
    await new Promise((resolve) => setImmediate(resolve));
    expect(counter.count).toBe(0);
  });

  it('a first waiter whose node someone else deletes fails with NODE_DELETED', async () => {
    const path = `${root}/deleted-waiter`;
    const sem = new InterProcessSemaphore(main, path, { maxLeases: 1 });
    const holder = await sem.acquire();
    const session = await connect();
    const counter = countWakeUps(session);
    const waiting = failureOf(new InterProcessSemaphore(session, path, { maxLeases: 1 }).acquire());
    await untilWatched(counter, holder.path, 0);
    const [, waiterNode] = await sem.getParticipantNodes();
    await main.delete(waiterNode!); // an operator, a cleanup script
    expect(await waiting).toMatchObject({ code: 'NODE_DELETED', path: waiterNode });
    expect(await sem.getParticipantNodes()).toEqual([holder.path]);
    await holder.release();
  });
});

describe('InterProcessSemaphore with a SharedCount', () => {
  it('raising the shared count wakes waiters at once', async () => {
    const count = new SharedCount(main, `${root}/count`, { seedValue: 1 });
    await count.start();
    const sem = new InterProcessSemaphore(main, `${root}/counted`, { count });
    const holder = await sem.acquire();
    const other = await connect();
    const otherCount = new SharedCount(other, `${root}/count`, { seedValue: 1 });
    const otherSem = new InterProcessSemaphore(other, `${root}/counted`, { count: otherCount });
    const waiting = [otherSem.acquire(), otherSem.acquire()];
    await untilParticipants(sem, 3);
    const { version } = count.getVersionedValue();
    expect(await count.trySetCount(3, version)).toBe(true);
    expect(await count.trySetCount(4, version)).toBe(false); // stale version
    const leases = await Promise.all(waiting);
    expect(otherCount.getCount()).toBe(3);
    expect(await sem.getParticipantNodes()).toHaveLength(3);
    await Promise.all([holder, ...leases].map((l) => l.release()));
    count.close();
    otherCount.close();
  });

  it('emits changed events for every change, its own and others', async () => {
    const a = new SharedCount(main, `${root}/events`, { seedValue: 5 });
    const b = new SharedCount(await connect(), `${root}/events`, { seedValue: 99 });
    await a.start();
    await b.start(); // the node exists: b's seed is not written
    expect(b.getCount()).toBe(5);
    const seen: number[] = [];
    b.on('changed', (n) => seen.push(n));
    for (const n of [6, 7, 8]) {
      const next = new Promise((resolve) => b.once('changed', resolve));
      await a.setCount(n);
      await next;
    }
    expect(seen).toEqual([6, 7, 8]);
    a.close();
    b.close();
  });
  it('close() removes its watch from the session and from the server', async () => {
    const path = `${root}/count-close`;
    const session = await connect();
    const baseline = sessionInternals(session).diagnostics.watchKeys;
    for (let i = 0; i < 3; i++) {
      const count = new SharedCount(session, path, { seedValue: 1 });
      await count.start();
      expect(sessionInternals(session).diagnostics.watchKeys).toBe(baseline + 1);
      expect(await serverWatchedPaths(testConnectString(), session.sessionIdBigInt)).toContain(path);
      count.close();
      expect(sessionInternals(session).diagnostics.watchKeys).toBe(baseline);
      // The server handles one session's requests in order: once this is answered, so is the removal.
      await session.exists(path);
      expect(await serverWatchedPaths(testConnectString(), session.sessionIdBigInt)).not.toContain(path);
    }
  });

  it('keeps following the count after its session is lost and replaced', async () => {
    const follower = await connect();
    const count = new SharedCount(follower, `${root}/count-expiry`, { seedValue: 1 });
    await count.start();
    const reconnected = new Promise<void>((resolve) => follower.once('connected', () => resolve()));
    await expireSession(testConnectString(), sessionInternals(follower).credentials);
    await reconnected; // a new ZooKeeper session, none of the old watches
    const seen = new Promise((resolve) => count.once('changed', resolve));
    await new SharedCount(main, `${root}/count-expiry`, { seedValue: 1 }).setCount(7);
    expect(await seen).toBe(7);
    expect(count.getCount()).toBe(7);
    count.close();
  });
});

describe('InterProcessSemaphore (curator layout)', () => {
  it('uses Curator InterProcessSemaphoreV2 names and leaves neither lease nor lock node on timeout', async () => {
    const path = `${root}/curator`;
    const sem = new InterProcessSemaphore(main, path, { maxLeases: 2, layout: 'curator' });
    const [a, b] = await sem.acquireMany(2);
    expect(a!.path).toMatch(new RegExp(`^${path}/leases/_c_[0-9a-f-]{36}-lease-\\d{10}$`));
    expect(a!.path).not.toBe(b!.path);
    await expect(sem.acquire({ timeoutMs: 150 })).rejects.toMatchObject({ code: 'LOCK_TIMEOUT' });
    expect(await sem.getParticipantNodes()).toEqual([a!.path, b!.path]);
    expect((await main.getChildren(`${path}/locks`)).children).toEqual([]);
    const waiting = sem.acquire();
    await untilParticipants(sem, 3);
    await a!.release();
    const c = await waiting;
    await b!.release();
    await c.release();
    expect(await sem.getParticipantNodes()).toEqual([]);
  });
});
