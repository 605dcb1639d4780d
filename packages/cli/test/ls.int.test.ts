/** `zk-recipes ls`: the locks under a root, found recursively, with holder and waiter counts. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockKeyPath, ZkSession } from '@zk-recipes/core';
import { LeaderLatch } from '@zk-recipes/leader';
import { InterProcessMutex, MutexSet } from '@zk-recipes/mutex';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { InterProcessSemaphore } from '@zk-recipes/semaphore';
import { testConnectString, uniqueRoot, untilChildCount } from '@zk-recipes/testing';
import type { LockListing } from '../src/index.js';
import { connectArgs, runCli } from './support/processes.js';

const root = uniqueRoot('cli-ls');
const sessions: ZkSession[] = [];

beforeAll(async () => {
  for (let i = 0; i < 4; i++) sessions.push(await ZkSession.connect({ connectString: testConnectString() }));
});
afterAll(async () => {
  await Promise.all(sessions.map((s) => s.close()));
});

describe('ls', () => {
  it('finds every lock with contenders under the root, nested ones included, and not what is under a lock', async () => {
    const [a, b, c, d] = sessions as [ZkSession, ZkSession, ZkSession, ZkSession];
    const observer = a;
    // A mutex with a holder and two waiters, held first so its holder is the oldest.
    const orders = `${root}/app/orders`;
    const held = await new InterProcessMutex(a, orders).acquire();
    const waiting = [new InterProcessMutex(b, orders).acquire(), new InterProcessMutex(c, orders).acquire()];
    // Still waiting when the sessions close at the end (SESSION_CLOSED): nothing to report then.
    for (const wait of waiting) wait.catch(() => undefined);
    await untilChildCount(observer, orders, 3);
    // A read/write lock, deeper, two readers.
    const catalog = `${root}/app/deep/er/catalog`;
    const readers = [await new InterProcessReadWriteLock(a, catalog).readLock().acquire(), await new InterProcessReadWriteLock(b, catalog).readLock().acquire()];
    // A semaphore in each layout.
    const pool = `${root}/pools/db`;
    const lease = await new InterProcessSemaphore(c, pool, { maxLeases: 2 }).acquire();
    const javaPool = `${root}/pools/java`;
    const curatorLease = await new InterProcessSemaphore(d, javaPool, { maxLeases: 2, layout: 'curator' }).acquire();
    // A LeaderLatch's election, a leader and a participant.
    const election = `${root}/services/scheduler`;
    const latches = [new LeaderLatch(a, election), new LeaderLatch(b, election)];
    latches[0]!.start();
    await latches[0]!.leadership();
    latches[1]!.start();
    await untilChildCount(observer, election, 2);
    // Not locks: an empty directory, a plain node.
    await observer.mkdirp(`${root}/app/idle`);

    const run = await runCli(['ls', root, '--json', ...connectArgs()]);
    expect(run.exitCode, run.stderr).toBe(0);
    const listing = JSON.parse(run.stdout) as LockListing;
    expect(listing).toMatchObject({ format: 1, root });
    expect(listing.locks.map((l) => [l.path, l.recipe, l.layout, l.holders, l.waiters, l.contenders])).toEqual([
      [`${root}/app/deep/er/catalog`, 'read-write-lock', 'zk-recipes', 2, 0, 2],
      [orders, 'mutex', null, 1, 2, 3],
      [pool, 'semaphore', 'queue', 1, 0, 1],
      [javaPool, 'semaphore', 'curator', 1, 0, 1],
      [election, 'leader-latch', null, 1, 1, 2],
    ]);
    for (const lock of listing.locks) expect(lock.oldestHolderAgeMs).toBeGreaterThanOrEqual(0);
    expect(listing.locks[1]!.oldestHolderAgeMs).toBeGreaterThanOrEqual(listing.locks[0]!.oldestHolderAgeMs!);

    const text = await runCli(['ls', root, ...connectArgs()]);
    expect(text.exitCode, text.stderr).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]!.split(/ {2,}/)).toEqual(['PATH', 'RECIPE', 'HOLDERS', 'WAITERS', 'OLDEST HOLDER, SINCE QUEUED']);
    expect(lines.slice(1).map((l) => l.split(/ {2,}/).slice(0, 4))).toEqual([
      [`${root}/app/deep/er/catalog`, 'read-write-lock/zk-recipes', '2', '0'],
      [orders, 'mutex', '1', '2'],
      [pool, 'semaphore/queue', '1', '0'],
      [javaPool, 'semaphore/curator', '1', '0'],
      [election, 'leader-latch', '1', '1'],
    ]);

    // A root that is itself a lock lists that lock; a root with no locks says so.
    const one = JSON.parse((await runCli(['ls', orders, '--json', ...connectArgs()])).stdout) as LockListing;
    expect(one.locks.map((l) => l.path)).toEqual([orders]);
    const none = await runCli(['ls', `${root}/app/idle`, ...connectArgs()]);
    expect(none).toMatchObject({ exitCode: 0, stdout: `no locks with contenders under ${root}/app/idle\n` });

    await held.release();
    // In the order they are granted: two sessions' creates reach the server in either order.
    await Promise.all(waiting.map(async (next) => (await next).release()));
    for (const r of readers) await r.release();
    await lease.release();
    await curatorLease.release();
    await Promise.all(latches.map((latch) => latch.close()));
  });

  it("lists the held keys of a MutexSet's base path among 400 key directories, keys named like lock nodes included", async () => {
    const [a, b] = sessions as [ZkSession, ZkSession];
    const base = `${root}/set/orders`;
    const mine = new MutexSet(a, base);
    const theirs = new MutexSet(b, base);
    // 400 keys used once: their directories stay (until the server's reaper takes them), empty.
    await Promise.all(Array.from({ length: 16 }, async (_, task) => {
      for (let i = task; i < 400; i += 16) await mine.withLock(`order/${i}`, () => undefined);
    }));
    // Keys held now, two with a waiter; two named as a mutex's and a semaphore's nodes would be.
    const heldKeys = ['order/3', 'order/150', 'order/399', 'lock-0000000001', 'lease-0000000002'];
    const handles = [];
    for (const key of heldKeys) handles.push(await mine.acquire(key));
    const waiting = ['order/3', 'lock-0000000001'].map((key) => theirs.acquire(key, { timeoutMs: 30_000 }));
    for (const key of ['order/3', 'lock-0000000001']) await untilChildCount(a, lockKeyPath(base, key), 2);

    const run = await runCli(['ls', base, '--json', ...connectArgs()]);
    expect(run.exitCode, run.stderr).toBe(0);
    const listing = JSON.parse(run.stdout) as LockListing;
    const expected = heldKeys.map((key) => [lockKeyPath(base, key), 'mutex', 1, key === 'order/3' || key === 'lock-0000000001' ? 1 : 0]);
    expect(listing.locks.map((l) => [l.path, l.recipe, l.holders, l.waiters])).toEqual(expected.sort((x, y) => (x[0]! < y[0]! ? -1 : 1)));

    // inspect --key: the lock of one key, its name encoded as the set encodes it.
    const one = await runCli(['inspect', base, '--key', 'order/3', '--json', ...connectArgs()]);
    expect(one.exitCode, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject({ path: `${base}/order%2F3`, recipe: 'mutex', holders: 1, waiters: 1 });

    for (const handle of handles) await handle.release();
    await Promise.all(waiting.map(async (next) => (await next).release()));
  });

  it('a root that does not exist: NO_NODE, exit 1', async () => {
    const run = await runCli(['ls', `${root}/missing`, ...connectArgs()]);
    expect(run).toMatchObject({ exitCode: 1, stdout: '', stderr: `zk-recipes: NO_NODE: no node at ${root}/missing\n` });
  });
});
