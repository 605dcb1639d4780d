/**
 * The re-entrancy traps docs/mutex.md describes ("Re-entrancy traps"), pinned against a real
 * server: who counts as the holder of an InterProcessMutex is decided by async context, and two
 * common shapes of code get that wrong.
 *
 * 1. A helper that acquires and returns: its caller is not the holder. `mutex.release()` there is
 *    NOT_OWNER (the message says to release through the handle), `mutex.acquire()` there queues a
 *    second node behind the first and waits behind itself; `handle.release()` works.
 * 2. Timers and async-resource-backed emitters (servers, sockets, streams) created while holding
 *    run their callbacks as the holder: they re-enter instead of waiting. A plain EventEmitter's
 *    listeners run as whoever emits. A function bound outside (`AsyncResource.bind`) runs outside.
 */
import { AsyncResource } from 'node:async_hooks';
import { EventEmitter } from 'node:events';
import { createServer, connect as connectTcp, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZkSession, type LockHandle } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { childrenOf, testConnectString, uniqueRoot, untilChildCount } from '@zk-recipes/testing';

const root = uniqueRoot('mutex-reentrancy-traps');
const sessions: ZkSession[] = [];
let session: ZkSession;
let observer: ZkSession;

async function connect(): Promise<ZkSession> {
  const s = await ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs: 4000 });
  sessions.push(s);
  return s;
}
beforeAll(async () => {
  session = await connect();
  observer = await connect();
});
afterAll(async () => {
  await Promise.all(sessions.map((s) => s.close()));
});

const children = (path: string) => childrenOf(observer, path);
const nodeName = (handle: LockHandle) => handle.path.split('/').pop();

/** What a callback saw when it tried the lock without waiting. */
interface Attempt {
  owned: boolean;
  /** The path of the handle it got, or null if the lock was not free for it. */
  path: string | null;
}

/** Tries the lock without waiting from wherever it is called, and gives back what it got. */
async function attempt(mutex: InterProcessMutex): Promise<Attempt> {
  const owned = mutex.isOwnedByCurrentContext();
  const handle = await mutex.tryAcquire();
  if (handle !== null) await handle.release();
  return { owned, path: handle?.path ?? null };
}

describe('re-entrancy trap 1: a helper that acquires and returns', () => {
  it("leaves its caller outside the holder's context: release() is NOT_OWNER and says handle.release(); acquire() waits behind itself; handle.release() works", async () => {
    const path = `${root}/helper`;
    const mutex = new InterProcessMutex(session, path);
    async function lockOrders(): Promise<LockHandle> {
      const handle = await mutex.acquire();
      // Here, inside the helper, we are the holder.
      expect(mutex.isOwnedByCurrentContext()).toBe(true);
      return handle;
    }

    const handle = await lockOrders();
    expect(mutex.isAcquiredInThisProcess()).toBe(true);
    expect(mutex.isOwnedByCurrentContext()).toBe(false);

    const notOwner = (await mutex.release().catch((err: unknown) => err)) as Error & { code?: string };
    expect(notOwner.code).toBe('NOT_OWNER');
    expect(notOwner.message).toContain(path);
    expect(notOwner.message).toContain('handle.release()');
    expect(await children(path)).toEqual([nodeName(handle)]);

    // An acquire here is a new contender: it queues its own node behind the helper's and would
    // wait for itself forever. tryAcquire says no at once; a waiting acquire shows the second node.
    expect(await mutex.tryAcquire()).toBeNull();
    const stop = new AbortController();
    const selfWait = mutex.acquire({ signal: stop.signal });
    await untilChildCount(observer, path, 2);
    stop.abort(new Error('it would wait for itself'));
    await expect(selfWait).rejects.toMatchObject({ code: 'ABORTED' });
    await untilChildCount(observer, path, 1); // its delete, sent before it settled
    expect(await children(path)).toEqual([nodeName(handle)]);

    // The handle is the capability: releasing through it works from anywhere.
    await handle.release();
    expect(mutex.isAcquiredInThisProcess()).toBe(false);
    expect(await children(path)).toEqual([]);
  });

  it('an async helper that returns the acquire promise without awaiting it leaves its caller outside too', async () => {
    const path = `${root}/helper-no-await`;
    const mutex = new InterProcessMutex(session, path);
    async function lockOrders(): Promise<LockHandle> {
      return mutex.acquire();
    }
    const handle = await lockOrders();
    expect(mutex.isOwnedByCurrentContext()).toBe(false);
    await expect(mutex.release()).rejects.toMatchObject({ code: 'NOT_OWNER' });
    await handle.release();
    expect(await children(path)).toEqual([]);
  });

  it('the remedies: `await using` on the returned handle, or a helper that takes a callback (withLock)', async () => {
    const path = `${root}/helper-remedies`;
    const mutex = new InterProcessMutex(session, path);
    // A plain function (not async, no .then) handing back acquire()'s own promise passes the
    // ownership on: the caller's await is the continuation of that promise.
    const lockOrders = () => mutex.acquire();
    {
      await using handle = await lockOrders();
      expect(handle.held).toBe(true);
      expect(mutex.isOwnedByCurrentContext()).toBe(true);
      expect(await children(path)).toEqual([nodeName(handle)]);
    }
    expect(await children(path)).toEqual([]);

    const withOrdersLocked = <T>(fn: (handle: LockHandle) => Promise<T>) => mutex.withLock(fn);
    const inside = await withOrdersLocked(async (handle) => {
      // The callback runs as the holder: it may re-enter and release by context.
      const again = await mutex.acquire({ timeoutMs: 0 });
      expect(again.path).toBe(handle.path);
      await mutex.release();
      return mutex.isOwnedByCurrentContext();
    });
    expect(inside).toBe(true);
    expect(await children(path)).toEqual([]);
  });
});

describe('re-entrancy trap 2: callbacks of timers and emitters created while holding run as the holder', () => {
  it('a timer created while holding re-enters the lock (same node, no wait) while an independent task cannot get it', async () => {
    const path = `${root}/timer`;
    const mutex = new InterProcessMutex(session, path);
    const handle = await mutex.acquire();
    const fromTimer = await new Promise<Attempt>((resolve, reject) => setTimeout(() => attempt(mutex).then(resolve, reject), 1));
    expect(fromTimer).toEqual({ owned: true, path: handle.path });
    const fromInterval = await new Promise<Attempt>((resolve, reject) => {
      const interval = setInterval(() => {
        clearInterval(interval);
        attempt(mutex).then(resolve, reject);
      }, 1);
    });
    expect(fromInterval).toEqual({ owned: true, path: handle.path });
    // A timer's re-entry counts: the holder's own release leaves the node until the timer's goes.
    const timerHandle = await new Promise<LockHandle>((resolve, reject) => setTimeout(() => mutex.acquire({ timeoutMs: 0 }).then(resolve, reject), 1));
    await handle.release();
    expect(await children(path)).toEqual([nodeName(handle)]);
    await timerHandle.release();
    expect(await children(path)).toEqual([]);
  });

  it('an independent task (a timer created before acquiring) waits like anyone else', async () => {
    const path = `${root}/timer-outside`;
    const mutex = new InterProcessMutex(session, path);
    let held = false;
    const outsideTimer = new Promise<Attempt>((resolve, reject) => {
      // Created before the acquire: its callback is not the holder, even while the lock is held.
      const interval = setInterval(() => {
        if (!held) return;
        clearInterval(interval);
        attempt(mutex).then(resolve, reject);
      }, 5);
    });
    const handle = await mutex.acquire();
    held = true;
    expect(await outsideTimer).toEqual({ owned: false, path: null });
    await handle.release();
  });

  it('a server created while holding handles its connections as the holder; a plain EventEmitter runs its listeners as whoever emits', async () => {
    const path = `${root}/emitters`;
    const mutex = new InterProcessMutex(session, path);
    const plain = new EventEmitter();
    const seen: Record<string, Promise<Attempt>> = {};
    const holder = (async () => {
      const handle = await mutex.acquire();
      let onConnection!: (attempt: Promise<Attempt>) => void;
      seen.server = new Promise((resolve) => (onConnection = resolve));
      const server = createServer((socket) => {
        onConnection(attempt(mutex));
        socket.end();
        server.close();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      let onPlain!: (attempt: Promise<Attempt>) => void;
      seen.plain = new Promise((resolve) => (onPlain = resolve));
      plain.once('ping', () => onPlain(attempt(mutex)));
      return { handle, port: (server.address() as AddressInfo).port };
    })();
    const { handle, port } = await holder;
    // Emitted from outside the holder: the listener, although registered by the holder, is not it.
    plain.emit('ping');
    // A connection made from outside: the server, created by the holder, handles it as the holder.
    const client = connectTcp(port, '127.0.0.1');
    client.on('error', () => undefined);
    client.resume();
    const [fromServer, fromPlain] = await Promise.all([seen.server!, seen.plain!]);
    client.destroy();
    expect(fromServer.owned).toBe(true);
    expect(fromServer.path).not.toBeNull();
    expect(fromPlain).toEqual({ owned: false, path: null });
    expect(mutex.isAcquiredInThisProcess()).toBe(true);
    expect(mutex.isOwnedByCurrentContext()).toBe(false);
    await untilChildCount(observer, path, 1); // the outsider's try: its delete, sent before it settled
    expect(await children(path)).toEqual([nodeName(handle)]);
    await handle.release();
    expect(await children(path)).toEqual([]);
  });

  it('a function bound outside with AsyncResource.bind runs outside, even when a holder schedules it', async () => {
    const path = `${root}/bound`;
    const mutex = new InterProcessMutex(session, path);
    const check = AsyncResource.bind(() => attempt(mutex));
    const handle = await mutex.acquire();
    const fromBound = await new Promise<Attempt>((resolve, reject) => setTimeout(() => check().then(resolve, reject), 1));
    expect(fromBound).toEqual({ owned: false, path: null });
    await handle.release();
    expect(await children(path)).toEqual([]);
  });
});
