import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZkSession } from '@zk-recipes/core';
import { InterProcessMutex, InterProcessSemaphoreMutex } from '@zk-recipes/mutex';
import { childrenOf, expireSession, FaultProxy, pollUntil, testConnectString, uniqueRoot, untilChildCount } from '@zk-recipes/testing';
import { sessionInternals } from '@zk-recipes/core/internal';
import { partitionUntilSuspended } from '../../core/test/support/partitionUntilSuspended.js';

const root = uniqueRoot('mutex');
const sessions: ZkSession[] = [];

async function connect(sessionTimeoutMs = 4000): Promise<ZkSession> {
  const session = await ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs });
  sessions.push(session);
  return session;
}

let session: ZkSession;
let observer: ZkSession;
beforeAll(async () => {
  session = await connect();
  observer = await connect();
});
afterAll(async () => {
  await Promise.all(sessions.map((s) => s.close()));
});

const children = (path: string) => childrenOf(observer, path);

describe('InterProcessMutex', () => {
  it('acquires, writes Curator-compatible node names, and releases', async () => {
    const path = `${root}/basic`;
    const mutex = new InterProcessMutex(session, path, { data: 'host-a' });
    const handle = await mutex.acquire();
    expect(handle.path).toMatch(/\/_c_[0-9a-f-]{36}-lock-\d{10}$/);
    expect(handle.fencingToken).toBeGreaterThan(0n);
    expect(mutex.isAcquiredInThisProcess()).toBe(true);
    expect(mutex.isOwnedByCurrentContext()).toBe(true);
    const { data, stat } = await observer.getData(handle.path);
    expect(data.toString()).toBe('host-a');
    expect(stat.czxid).toBe(handle.fencingToken);
    expect(stat.ephemeralOwner).toBe(session.sessionIdBigInt);
    await handle.release();
    expect(mutex.isAcquiredInThisProcess()).toBe(false);
    expect(await children(path)).toEqual([]);
  });

  it('bytes given as data are the lock\'s own: a caller who reuses its buffer afterwards does not change what is written', async () => {
    const bytes = Buffer.from('host-a');
    const mutex = new InterProcessMutex(session, `${root}/own-bytes`, { data: bytes });
    bytes.write('XXXXXX');
    const handle = await mutex.acquire();
    expect((await observer.getData(handle.path)).data.toString()).toBe('host-a');
    await handle.release();
  });

  it("grantedAt is the grant's moment: a waiter's comes after the holder let go, before its acquire() resolves", async () => {
    const path = `${root}/granted-at`;
    const holder = new InterProcessMutex(session, path);
    const waiter = new InterProcessMutex(await connect(), path);
    const calledAt = performance.now();
    const held = await holder.acquire();
    expect(held.grantedAt).toBeGreaterThan(calledAt);
    expect(held.grantedAt).toBeLessThanOrEqual(performance.now());
    const waiting = waiter.acquire({ timeoutMs: 10_000 });
    const releasedAt = performance.now();
    await held.release();
    const next = await waiting;
    const resolvedAt = performance.now();
    expect(next.grantedAt).toBeGreaterThan(releasedAt);
    expect(next.grantedAt).toBeLessThanOrEqual(resolvedAt);
    // A re-entry shares its holding's moment.
    const inner = await waiter.acquire();
    expect(inner.grantedAt).toBe(next.grantedAt);
    await inner.release();
    await next.release();
  });

  it('re-enters 3 deep in the same async context without new nodes; the node goes with the last release', async () => {
    const path = `${root}/reentrant`;
    const mutex = new InterProcessMutex(session, path);
    const outer = await mutex.acquire();
    const middle = await mutex.acquire({ timeoutMs: 0 });
    const inner = await mutex.acquire({ timeoutMs: 0 });
    expect(new Set([outer.path, middle.path, inner.path]).size).toBe(1);
    expect(await children(path)).toHaveLength(1);
    await mutex.release();
    await mutex.release();
    expect(await children(path)).toHaveLength(1);
    expect(mutex.isOwnedByCurrentContext()).toBe(true);
    await mutex.release();
    expect(await children(path)).toEqual([]);
    await expect(mutex.release()).rejects.toMatchObject({ code: 'NOT_OWNER' });
  });

  it('refuses a re-entry whose signal is already aborted (ABORTED), as any acquisition, and keeps the holding as it was', async () => {
    const path = `${root}/reentrant-aborted`;
    const mutex = new InterProcessMutex(session, path);
    const outer = await mutex.acquire();
    const controller = new AbortController();
    controller.abort(new Error('request gone'));
    await expect(mutex.acquire({ signal: controller.signal })).rejects.toMatchObject({ code: 'ABORTED', path });
    expect(await mutex.tryAcquire({ signal: controller.signal }).catch((err: unknown) => err)).toMatchObject({ code: 'ABORTED' });
    await expect(mutex.withLock(() => 'ran', { signal: controller.signal })).rejects.toMatchObject({ code: 'ABORTED' });
    // The holding is untouched: one acquisition, released by one release.
    expect(outer.held).toBe(true);
    await mutex.release();
    expect(mutex.isOwnedByCurrentContext()).toBe(false);
    expect(await children(path)).toEqual([]);
  });

  it('excludes two independent concurrent tasks of one process, and lets work forked inside the holder re-enter', async () => {
    const path = `${root}/tasks`;
    const mutex = new InterProcessMutex(session, path);
    const log: string[] = [];
    const task = async (name: string) => {
      await mutex.acquire();
      log.push(`${name}:in`);
      // Forked work inside the holder belongs to the holder: it re-enters instead of deadlocking.
      await Promise.all([1, 2].map(async () => mutex.withLock(async () => undefined, { timeoutMs: 0 })));
      await new Promise((resolve) => setTimeout(resolve, 30));
      log.push(`${name}:out`);
      await mutex.release();
    };
    await Promise.all([task('a'), task('b')]);
    expect(log).toHaveLength(4);
    expect(log[0]!.split(':')[0]).toBe(log[1]!.split(':')[0]);
    expect(log[2]!.split(':')[0]).toBe(log[3]!.split(':')[0]);
  });

  it('throws NOT_OWNER for a release from a context that does not hold the lock', async () => {
    const path = `${root}/not-owner`;
    const mutex = new InterProcessMutex(session, path);
    await expect(mutex.release()).rejects.toMatchObject({ code: 'NOT_OWNER' });
    let release!: () => void;
    const holding = new Promise<void>((resolve) => (release = resolve));
    const holder = (async () => {
      await mutex.acquire();
      await holding;
      await mutex.release();
    })();
    await pollUntil(() => mutex.isAcquiredInThisProcess(), 15_000, 'the holder task to acquire');
    expect(mutex.isOwnedByCurrentContext()).toBe(false);
    await expect(mutex.release()).rejects.toMatchObject({ code: 'NOT_OWNER' });
    release();
    await holder;
    const handle = await mutex.acquire();
    await handle.release();
    await expect(handle.release()).rejects.toMatchObject({ code: 'NOT_OWNER' });
  });

  it('times out and aborts with typed errors, leaving no node behind', async () => {
    const path = `${root}/timeout`;
    const holder = new InterProcessMutex(session, path);
    const other = new InterProcessMutex(await connect(), path);
    const held = await holder.acquire();
    await expect(other.acquire({ timeoutMs: 150 })).rejects.toMatchObject({ code: 'LOCK_TIMEOUT' });
    expect(await other.tryAcquire()).toBeNull();
    const controller = new AbortController();
    const aborted = other.acquire({ signal: controller.signal });
    await untilChildCount(observer, path, 2);
    controller.abort(new Error('shutting down'));
    await expect(aborted).rejects.toMatchObject({ code: 'ABORTED' });
    // Its delete was sent before it settled; answered by now, or soon (docs/architecture.md, "Deadlines").
    await untilChildCount(observer, path, 1);
    expect(await children(path)).toEqual([held.path.split('/').pop()]);
    await held.release();
    expect(await children(path)).toEqual([]);
  });

  it('rejects bad options with INVALID_ARGUMENT', async () => {
    expect(() => new InterProcessMutex(session, 'no-slash')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => new InterProcessMutex(session, `${root}/x`, { bogus: 1 } as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    // Constructors throw; acquire() returns a promise, which rejects.
    const mutex = new InterProcessMutex(session, `${root}/x`);
    await expect(mutex.acquire({ timeoutMs: -1 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('withLock returns the result, always releases, and `await using` releases', async () => {
    const path = `${root}/with`;
    const mutex = new InterProcessMutex(session, path);
    expect(await mutex.withLock(async (h) => h.path.length > 0)).toBe(true);
    await expect(
      mutex.withLock(() => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(mutex.isAcquiredInThisProcess()).toBe(false);
    {
      await using handle = await mutex.acquire();
      expect(handle.held).toBe(true);
      expect(await children(path)).toHaveLength(1);
    }
    expect(await children(path)).toEqual([]);
  });

  it('lists participants holder first, and serves 1,000 waiters of one process in FIFO order', async () => {
    const path = `${root}/fifo`;
    const mutex = new InterProcessMutex(session, path);
    // The first holder uses its own object: tasks forked by the holder's context would otherwise
    // be "the holder" and re-enter instead of queueing.
    const first = await new InterProcessMutex(session, path).acquire();
    const order: number[] = [];
    const waiters = Array.from({ length: 1000 }, async (_, i) => {
      // acquire() sends its create synchronously, so creates (and sequences) follow i.
      await mutex.acquire();
      order.push(i);
      await mutex.release();
    });
    await untilChildCount(observer, path, 1001, 30_000);
    const participants = await mutex.getParticipantNodes();
    expect(participants[0]).toBe(first.path);
    expect(participants).toHaveLength(1001);
    const sequences = participants.slice(1).map((p) => Number(p.slice(-10)));
    expect([...sequences].sort((a, b) => a - b)).toEqual(sequences);
    await first.release();
    await Promise.all(waiters);
    // FIFO: waiters got the lock in the order their nodes were created.
    expect(order).toEqual(Array.from({ length: 1000 }, (_, i) => i));
  });

  it('fencing tokens grow across holders, even when the lock directory is deleted and recreated', async () => {
    const path = `${root}/fencing`;
    const mutex = new InterProcessMutex(session, path);
    const a = await mutex.acquire();
    await a.release();
    await observer.delete(path).catch(() => undefined);
    const b = await mutex.acquire();
    await b.release();
    expect(b.fencingToken).toBeGreaterThan(a.fencingToken);
  });

  it('tells a holder it lost the lock when its session expires; the next waiter acquires', async () => {
    const path = `${root}/expiry`;
    const doomedSession = await connect();
    const doomed = new InterProcessMutex(doomedSession, path);
    const waiter = new InterProcessMutex(await connect(), path);
    const handle = await doomed.acquire();
    const lostEvent = new Promise<Error>((resolve) => doomed.once('lost', resolve));
    const next = waiter.acquire({ timeoutMs: 20_000 });
    await untilChildCount(observer, path, 2);
    await expireSession(testConnectString(), sessionInternals(doomedSession).credentials);
    const nextHandle = await next;
    await lostEvent;
    expect(handle.signal.aborted).toBe(true);
    // Releasing after loss neither throws nor deletes the new holder's node.
    await handle.release();
    expect(await children(path)).toEqual([nextHandle.path.split('/').pop()]);
    await nextHandle.release();
  });
});

describe('InterProcessMutex connection news', () => {
  it('tells a holder `suspended` when its connection goes silent and `reconnected` when the session comes back', async () => {
    const [host, port] = testConnectString().split(',')[0]!.split('/')[0]!.split(':') as [string, string];
    const proxy = await FaultProxy.start({ targetHost: host, targetPort: Number(port) });
    const flaky = await ZkSession.connect({ connectString: proxy.connectString, sessionTimeoutMs: 6000 });
    sessions.push(flaky);
    try {
      const mutex = new InterProcessMutex(flaky, `${root}/suspend`);
      const handle = await mutex.acquire();
      const events: string[] = [];
      mutex.on('suspended', () => events.push('suspended'));
      const reconnected = new Promise<void>((resolve) => mutex.once('reconnected', () => resolve()));
      // Silence from a reply on until the session says `suspended` (the watchdog's 2/3 of the
      // session timeout, ~4 s), healed then: inside the session timeout the server counts from it.
      await partitionUntilSuspended(flaky, proxy);
      await reconnected;
      expect(events).toEqual(['suspended']);
      expect(handle.signal.aborted).toBe(false);
      expect(await children(`${root}/suspend`)).toEqual([handle.path.split('/').pop()]);
      await handle.release();
    } finally {
      await proxy.close();
    }
  });
});

describe('InterProcessMutex connection news, many locks', () => {
  it('reaches only the locks that hold, through listeners on the session that do not come and go with each holding', async () => {
    const [host, port] = testConnectString().split(',')[0]!.split('/')[0]!.split(':') as [string, string];
    const proxy = await FaultProxy.start({ targetHost: host, targetPort: Number(port) });
    const flaky = await ZkSession.connect({ connectString: proxy.connectString, sessionTimeoutMs: 6000 });
    sessions.push(flaky);
    try {
      const listeners = (): number[] => (['suspended', 'reconnected', 'lost'] as const).map((event) => flaky.listenerCount(event));
      const held = new InterProcessMutex(flaky, `${root}/news-held`);
      const idle = new InterProcessMutex(flaky, `${root}/news-idle`);
      await (await idle.acquire()).release();
      const handle = await held.acquire();
      // Looked at, the holding's node is watched now (that watch follows suspensions once per session).
      expect(handle.held).toBe(true);
      for (let i = 0; i < 5; i++) await (await idle.acquire()).release();
      const whileHeld = listeners();
      for (let i = 0; i < 20; i++) await (await idle.acquire()).release();
      expect(listeners()).toEqual(whileHeld);
      const heard: string[] = [];
      held.on('suspended', () => heard.push('held: suspended'));
      idle.on('suspended', () => heard.push('idle: suspended'));
      idle.on('reconnected', () => heard.push('idle: reconnected'));
      const reconnected = new Promise<void>((resolve) => held.once('reconnected', () => resolve()));
      await partitionUntilSuspended(flaky, proxy);
      await reconnected;
      expect(heard).toEqual(['held: suspended']);
      await handle.release();
    } finally {
      await proxy.close();
    }
  });
});

describe('InterProcessSemaphoreMutex', () => {
  it('is not re-entrant: a second acquire from the holder waits like anyone else', async () => {
    const path = `${root}/semaphore-mutex`;
    const mutex = new InterProcessSemaphoreMutex(session, path);
    const handle = await mutex.acquire();
    await expect(mutex.acquire({ timeoutMs: 100 })).rejects.toMatchObject({ code: 'LOCK_TIMEOUT' });
    await untilChildCount(observer, path, 1); // the timed-out node's delete, sent before it settled
    expect(await children(path)).toEqual([handle.path.split('/').pop()]);
    await mutex.release();
    expect(handle.held).toBe(false);
    expect(await children(path)).toEqual([]);
  });
});
