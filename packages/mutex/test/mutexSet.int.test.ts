/**
 * MutexSet against a real server: a lock per key under one base path, each key's lock an
 * InterProcessMutex on `<base>/<encoded key>`; keys mapped safely, re-entrancy per key, the idle
 * locks bounded (never a key held or awaited), events for the whole set, errors.
 */
import { AsyncResource } from 'node:async_hooks';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeLockKey, lockKeyPath, MAX_LOCK_KEY_NAME_LENGTH, ZkSession, type LockHandle } from '@zk-recipes/core';
import { sessionInternals } from '@zk-recipes/core/internal';
import { partitionUntilSuspended } from '../../core/test/support/partitionUntilSuspended.js';
import { InterProcessMutex, MutexSet } from '@zk-recipes/mutex';
import { childrenOf, connectTallied, expireSession, nodeScriptArgs, testConnectString, uniqueRoot, untilChildCount } from '@zk-recipes/testing';

const root = uniqueRoot('mutex-set');
const sessions: ZkSession[] = [];

async function connect(options: { connectString?: string; sessionTimeoutMs?: number } = {}): Promise<ZkSession> {
  const session = await ZkSession.connect({ connectString: options.connectString ?? testConnectString(), sessionTimeoutMs: options.sessionTimeoutMs ?? 4000 });
  sessions.push(session);
  return session;
}

let session: ZkSession;
let other: ZkSession;
let observer: ZkSession;
beforeAll(async () => {
  [session, other, observer] = await Promise.all([connect(), connect(), connect()]);
});
afterAll(async () => {
  await Promise.all(sessions.map((s) => s.close()));
});

const children = (path: string) => childrenOf(observer, path);
const nameOf = (handle: LockHandle) => handle.path.slice(handle.path.lastIndexOf('/') + 1);

describe('MutexSet: a lock per key', () => {
  it("locks each key in its own directory, as an InterProcessMutex on <base>/<key> does: the same key excludes, another key does not", async () => {
    const base = `${root}/basic`;
    const locks = new MutexSet(session, base, { data: 'orders-api' });
    const theirs = new MutexSet(other, base);
    const a = await locks.acquire('order-1');
    expect(a.path).toMatch(new RegExp(`^${base}/order-1/_c_[0-9a-f-]{36}-lock-\\d{10}$`));
    expect((await observer.getData(a.path)).data.toString()).toBe('orders-api');
    // Another key is another lock; the same key waits, in this process or another.
    const b = await theirs.acquire('order-2', { timeoutMs: 5_000 });
    expect(await theirs.tryAcquire('order-1')).toBeNull();
    // An InterProcessMutex on the key's path (Curator's too) is the same lock.
    expect(await new InterProcessMutex(other, `${base}/order-1`).tryAcquire()).toBeNull();
    const waiting = theirs.acquire('order-1', { timeoutMs: 10_000 });
    await untilChildCount(observer, `${base}/order-1`, 2);
    expect(await locks.getParticipantNodes('order-1')).toEqual([a.path, expect.stringMatching(/-lock-\d{10}$/)]);
    expect(await theirs.getParticipantNodes('order-1')).toEqual(await locks.getParticipantNodes('order-1'));
    await a.release();
    const next = await waiting;
    expect(next.fencingToken).toBeGreaterThan(a.fencingToken);
    await next.release();
    await b.release();
    expect(await children(`${base}/order-1`)).toEqual([]);
    expect(await locks.getParticipantNodes('never-used')).toEqual([]);
  });

  it('withLock acquires, runs, always releases, and returns what the function returns', async () => {
    const base = `${root}/with-lock`;
    const locks = new MutexSet(session, base);
    const seen = await locks.withLock('tenant-7', async (lock) => {
      expect(locks.isOwnedByCurrentContext('tenant-7')).toBe(true);
      return nameOf(lock);
    });
    expect(seen).toMatch(/-lock-0000000000$/);
    expect(locks.isAcquiredInThisProcess('tenant-7')).toBe(false);
    await expect(locks.withLock('tenant-7', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await children(`${base}/tenant-7`)).toEqual([]);
  });
});

describe('MutexSet: keys', () => {
  it("maps any key to one child of the base path, never outside it, and two keys never to one child", async () => {
    const base = `${root}/keys/base`;
    const locks = new MutexSet(session, base);
    const keys = ['/', '.', '..', '../..', '../../zookeeper', 'a/b', 'a%2Fb', '%', '%25', 'tab\tnew\nline\u0000', '\u202ertl', 'é', 'e\u0301', '😀', '\ud83d', 'order-1', 'Order-1', 'x'.repeat(MAX_LOCK_KEY_NAME_LENGTH)];
    const handles = [];
    for (const key of keys) handles.push(await locks.acquire(key, { timeoutMs: 5_000 }));
    // Each key's node sits in its own directory, a child of the base path.
    for (const [i, handle] of handles.entries()) {
      const dir = handle.path.slice(0, handle.path.lastIndexOf('/'));
      expect(dir).toBe(lockKeyPath(base, keys[i]!));
      expect(dir.slice(0, dir.lastIndexOf('/'))).toBe(base);
      expect(locks.pathOf(keys[i]!)).toBe(dir);
    }
    const names = await children(base);
    expect(names).toHaveLength(keys.length);
    expect(names.map((name) => decodeLockKey(name)).sort()).toEqual([...keys].sort());
    // Nothing was made outside the base path.
    expect(await children(`${root}/keys`)).toEqual(['base']);
    for (const handle of handles) await handle.release();
  });

  it('refuses an empty key, a key that is not a string, and a key whose name is too long, with INVALID_ARGUMENT and no node made', async () => {
    const base = `${root}/bad-keys`;
    const locks = new MutexSet(session, base);
    await (await locks.acquire('good')).release();
    await expect(locks.acquire('')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/^MutexSet\.acquire: invalid key: a key must not be empty/) });
    await expect(locks.tryAcquire(42 as unknown as string)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/^MutexSet\.tryAcquire: invalid key: a key must be a string, got number/) });
    await expect(locks.withLock(undefined as unknown as string, () => 'ran')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(locks.acquire('/'.repeat(400))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/node name would be 1200 characters, over the limit of 1024/) });
    await expect(locks.release('')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(locks.getParticipantNodes('')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(() => locks.isAcquiredInThisProcess('')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => locks.pathOf('x'.repeat(MAX_LOCK_KEY_NAME_LENGTH + 1))).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(await children(base)).toEqual(['good']);
    expect(locks.size).toBe(1);
  });

  it('refuses bad options and a bad base path or session from the constructor (INVALID_ARGUMENT)', () => {
    const bad = (make: () => unknown) => expect(make).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    bad(() => new MutexSet(session, '/'));
    bad(() => new MutexSet(session, 'relative'));
    bad(() => new MutexSet(session, '/zookeeper/keys'));
    bad(() => new MutexSet({} as ZkSession, `${root}/x`));
    bad(() => new MutexSet(session, `${root}/x`, { maxIdleLocks: -1 }));
    bad(() => new MutexSet(session, `${root}/x`, { maxIdleLocks: 1.5 }));
    bad(() => new MutexSet(session, `${root}/x`, { deleteIdleDirectories: 'yes' as unknown as boolean }));
    bad(() => new MutexSet(session, `${root}/x`, { maxIdle: 3 } as never));
  });

  it('refuses bad acquire options as a mutex does, and keeps no lock object for them', async () => {
    const locks = new MutexSet(session, `${root}/bad-options`, { maxIdleLocks: 0 });
    await expect(locks.acquire('k', { timeoutMs: -1 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(locks.withLock('k', () => 'ran', { bogus: 1 } as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(locks.size).toBe(0);
  });
});

describe('MutexSet: ownership per key, as InterProcessMutex', () => {
  it('re-enters a key its context holds without a new node, holds other keys separately, and makes independent tasks wait', async () => {
    const base = `${root}/reentrant`;
    const locks = new MutexSet(session, base);
    // Made before the acquisition: what runs in it is not the holder (docs/mutex.md, "Re-entrancy traps").
    const outside = new AsyncResource('independent-task');
    const outer = await locks.acquire('a');
    const inner = await locks.acquire('a', { timeoutMs: 0 });
    expect(inner.path).toBe(outer.path);
    // A key nobody holds: a round trip, which a busy machine may not finish within a 0 ms deadline's slack.
    const b = await locks.acquire('b');
    expect(b.path.startsWith(`${base}/b/`)).toBe(true);
    expect(await children(`${base}/a`)).toHaveLength(1);
    expect([locks.isOwnedByCurrentContext('a'), locks.isOwnedByCurrentContext('b'), locks.isOwnedByCurrentContext('c')]).toEqual([true, true, false]);
    // A task started on its own is not the holder: it waits for the key (and not for others).
    const task = async (key: string) => (await locks.tryAcquire(key, { timeoutMs: 200 }))?.release() ?? 'waited';
    expect(await Promise.all([outside.runInAsyncScope(() => task('a')), outside.runInAsyncScope(() => task('c'))])).toEqual(['waited', undefined]);
    await locks.release('a');
    expect(await children(`${base}/a`)).toHaveLength(1);
    await locks.release('a');
    expect(await children(`${base}/a`)).toEqual([]);
    await expect(locks.release('a')).rejects.toMatchObject({ code: 'NOT_OWNER' });
    await expect(locks.release('never')).rejects.toMatchObject({ code: 'NOT_OWNER', message: expect.stringMatching(/^MutexSet\.release: key "never" is not held/) });
    await b.release();
  });

  it('a release from a context that does not hold the key is NOT_OWNER; the handle releases from anywhere', async () => {
    const locks = new MutexSet(session, `${root}/not-owner`);
    const lockIt = async () => locks.acquire('k');
    const handle = await lockIt(); // the helper held it: the caller is not the holder
    await expect(locks.release('k')).rejects.toMatchObject({ code: 'NOT_OWNER' });
    expect(locks.isAcquiredInThisProcess('k')).toBe(true);
    expect(locks.isOwnedByCurrentContext('k')).toBe(false);
    await handle.release();
    expect(locks.isAcquiredInThisProcess('k')).toBe(false);
  });
});

describe('MutexSet: memory', () => {
  it('keeps at most maxIdleLocks idle lock objects, the least recently used dropped first', async () => {
    const locks = new MutexSet(session, `${root}/lru`, { maxIdleLocks: 5 });
    for (let i = 0; i < 40; i++) await (await locks.acquire(`k${i}`)).release();
    expect(locks.size).toBe(5);
    const none = new MutexSet(session, `${root}/lru-none`, { maxIdleLocks: 0 });
    for (let i = 0; i < 10; i++) await none.withLock(`k${i}`, () => undefined);
    expect(none.size).toBe(0);
    // Default: 1024, so 1,000 keys in turn stay (the acquisitions of a kept key make no lock object).
    const kept = new MutexSet(session, `${root}/lru-default`);
    await Promise.all(Array.from({ length: 8 }, async (_, task) => {
      for (let i = task; i < 200; i += 8) await kept.withLock(`k${i}`, () => undefined);
    }));
    expect(kept.size).toBe(200);
  });

  it('never drops the lock of a key held or awaited, however many other keys come and go', async () => {
    const base = `${root}/never-evicted`;
    const locks = new MutexSet(session, base, { maxIdleLocks: 2 });
    const blocker = await new InterProcessMutex(other, `${base}/awaited`).acquire();
    const held = await locks.acquire('held');
    const awaited = locks.acquire('awaited', { timeoutMs: 30_000 });
    await untilChildCount(observer, `${base}/awaited`, 2);
    const churned = Array.from({ length: 8 }, async (_, task) => {
      for (let i = task; i < 300; i += 8) await locks.withLock(`churn-${i}`, () => undefined);
    });
    await Promise.all(churned);
    expect(locks.size).toBe(4); // the held key, the awaited key, two idle
    // Still the same lock object: the holder re-enters it (no new node) and releases it by key.
    const again = await locks.acquire('held', { timeoutMs: 0 });
    expect(again.path).toBe(held.path);
    await locks.release('held');
    await locks.release('held');
    expect(await children(`${base}/held`)).toEqual([]);
    // The waiter is still this set's: granted when the other session lets go.
    expect(locks.isAcquiredInThisProcess('awaited')).toBe(false);
    await blocker.release();
    const granted = await awaited;
    expect(locks.isAcquiredInThisProcess('awaited')).toBe(true);
    await granted.release();
    expect(locks.size).toBe(2);
  });

  it('does not grow the heap with the number of keys ever used (twice 8,000 new keys after a warm-up)', async () => {
    const script = fileURLToPath(new URL('./workers/mutexSetHeap.ts', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', ...nodeScriptArgs(script), testConnectString(), `${root}/heap`, '8000'], { timeout: 240_000 });
    const { perKeyBytes, size, maxIdleLocks } = JSON.parse(stdout) as { perKeyBytes: number; size: number; maxIdleLocks: number };
    expect(size).toBe(maxIdleLocks);
    // A kept lock object is 1.5 KB; anything kept per key (a map entry and its key) is 60 bytes or more.
    expect(perKeyBytes, `memory: ${perKeyBytes} bytes a key`).toBeLessThan(40);
  }, 300_000);
});

describe('MutexSet: events', () => {
  it('tells suspended and reconnected once for the whole set while it holds keys, not per key', async () => {
    const { session: flaky, proxy, close } = await connectTallied({ sessionTimeoutMs: 6000 });
    try {
      const locks = new MutexSet(flaky, `${root}/news`);
      const idle = new MutexSet(flaky, `${root}/news-idle`);
      await idle.withLock('k', () => undefined);
      const handles = [await locks.acquire('a'), await locks.acquire('b'), await locks.acquire('c')];
      const heard: string[] = [];
      locks.on('suspended', () => heard.push('suspended'));
      idle.on('suspended', () => heard.push('idle: suspended'));
      const reconnected = new Promise<void>((resolve) => locks.once('reconnected', () => resolve()));
      // Silence from a reply on until the session says `suspended` (2/3 of the session timeout),
      // healed then: within the timeout.
      await partitionUntilSuspended(flaky, proxy);
      await reconnected;
      expect(heard).toEqual(['suspended']);
      for (const handle of handles) expect(handle.signal.aborted).toBe(false);
      for (const handle of handles) await handle.release();
    } finally {
      await close();
    }
  });

  it('tells lost with each key held when the session is lost, and with the key whose node someone deleted', async () => {
    const doomed = await connect({ sessionTimeoutMs: 4000 });
    const locks = new MutexSet(doomed, `${root}/lost`);
    const lost: Array<[string, string]> = [];
    let heard: () => void = () => undefined;
    locks.on('lost', (reason, key) => {
      lost.push([key, (reason as { code?: string }).code ?? '']);
      heard();
    });
    const lostCount = (n: number) => new Promise<void>((resolve) => (heard = () => lost.length >= n && resolve()));
    const deleted = await locks.acquire('deleted');
    const one = lostCount(1);
    await observer.delete(deleted.path);
    await one;
    expect(deleted.signal.aborted).toBe(true);
    expect(lost).toEqual([['deleted', 'NODE_DELETED']]);
    const a = await locks.acquire('a');
    const b = await locks.acquire('b');
    await deleted.release();
    const three = lostCount(3);
    await expireSession(testConnectString(), sessionInternals(doomed).credentials);
    await three;
    expect(lost.slice(1).sort()).toEqual([
      ['a', 'SESSION_LOST'],
      ['b', 'SESSION_LOST'],
    ]);
    expect(a.signal.aborted && b.signal.aborted).toBe(true);
    await a.release();
    await b.release();
    expect(locks.isAcquiredInThisProcess('a')).toBe(false);
  });
});
