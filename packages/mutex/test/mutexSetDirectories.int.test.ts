/**
 * A MutexSet's key directories: removed by the server (containers) once idle, or by the set itself
 * with `deleteIdleDirectories`, and the races that deletion meets: a directory deleted while
 * another process is creating its node in it, and two processes deleting and re-creating one
 * key's directory in a loop. Every acquisition must still succeed, and exclusion hold per key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZkSession, type LockHandle } from '@zk-recipes/core';
import { waitUntilGone } from '@zk-recipes/core/recipe-kit';
import { MutexSet } from '@zk-recipes/mutex';
import { connectTallied, findOverlaps, pollUntil, reaperRound, testConnectString, TestingServer, uniqueRoot, ZK_OPCODES, type Interval, type TalliedSession } from '@zk-recipes/testing';

const root = uniqueRoot('mutex-set-dirs');
const sessions: ZkSession[] = [];
const tallied: TalliedSession[] = [];

async function connect(connectString = testConnectString()): Promise<ZkSession> {
  const session = await ZkSession.connect({ connectString, sessionTimeoutMs: 10_000 });
  sessions.push(session);
  return session;
}
async function connectThroughProxy(): Promise<TalliedSession> {
  const t = await connectTallied({ sessionTimeoutMs: 10_000 });
  tallied.push(t);
  return t;
}

let observer: ZkSession;
beforeAll(async () => {
  observer = await connect();
});
afterAll(async () => {
  await Promise.all(tallied.map((t) => t.close()));
  await Promise.all(sessions.map((s) => s.close()));
});

const gone = (session: ZkSession, path: string) => waitUntilGone(session, path, AbortSignal.timeout(30_000));

describe('MutexSet directories, removed by the server', () => {
  let reaping: TestingServer;
  let there: ZkSession;
  beforeAll(async () => {
    reaping = await TestingServer.start({ forceSync: false, systemProperties: { 'znode.container.checkIntervalMs': '100' } });
    there = await connect(reaping.connectString);
  });
  afterAll(async () => {
    await Promise.all(sessions.filter((s) => s.options.connectString === reaping?.connectString).map((s) => s.close()));
    await reaping?.stop();
  });

  it("are containers: an idle key's directory goes, then the base path, and a key kept idle in the set makes its directory again", async () => {
    const base = `${root}/reaped/orders`;
    const locks = new MutexSet(there, base);
    await locks.withLock('order-1', () => undefined);
    await locks.withLock('order-2', () => undefined);
    expect(await gone(there, `${base}/order-1`)).toBe('gone');
    expect(await gone(there, base)).toBe('gone');
    // The set still keeps order-1's lock object (idle): its next acquisition makes the directories again.
    expect(locks.size).toBe(2);
    const again = await locks.acquire('order-1', { timeoutMs: 10_000 });
    expect(again.path.startsWith(`${base}/order-1/`)).toBe(true);
    await again.release();
  });

  it("are not removed while a key is held, however long", async () => {
    const base = `${root}/held`;
    const locks = new MutexSet(there, base);
    const held = await locks.acquire('k');
    await reaperRound(there, root);
    expect(await there.exists(held.path)).not.toBeNull();
    await held.release();
  });
});

describe('MutexSet directories, deleted by the set (deleteIdleDirectories)', () => {
  it("deletes a key's directory when the key becomes idle in this process: one delete, at once", async () => {
    const t = await connectThroughProxy();
    const base = `${root}/eager`;
    const locks = new MutexSet(t.session, base, { deleteIdleDirectories: true });
    const dir = locks.pathOf('order-1');
    const outer = await locks.acquire('order-1');
    const inner = await locks.acquire('order-1');
    await inner.release(); // still held: nothing deleted
    expect(t.proxy.requestsTo(ZK_OPCODES.delete, dir)).toBe(0);
    await outer.release();
    expect(await gone(observer, dir)).toBe('gone');
    expect(t.proxy.requestsTo(ZK_OPCODES.delete, dir)).toBe(1);
    // A failed acquisition leaves the key idle too: its directory goes as well.
    const blocker = new MutexSet(observer, base);
    const theirs = await blocker.acquire('order-2');
    await expect(locks.acquire('order-2', { timeoutMs: 50 })).rejects.toMatchObject({ code: 'LOCK_TIMEOUT' });
    await t.session.exists('/'); // answered after the delete sent before it
    // Refused while another process holds the key (NOT_EMPTY): its holding is untouched.
    expect(t.proxy.requestsTo(ZK_OPCODES.delete, locks.pathOf('order-2'))).toBe(1);
    expect(await observer.exists(theirs.path)).not.toBeNull();
    expect(theirs.signal.aborted).toBe(false);
    await theirs.release();
  });

  it('never breaks another process that creates its node in the directory being deleted: it makes the directory again and acquires', async () => {
    const base = `${root}/race-create`;
    const deleter = new MutexSet(await connect(), base, { deleteIdleDirectories: true });
    const b = await connectThroughProxy();
    const creator = new MutexSet(b.session, base);
    const dir = creator.pathOf('k');
    await creator.withLock('k', () => undefined); // the directory exists, empty
    const before = (await observer.exists(dir))!.czxid;
    const madeBefore = b.proxy.requestsTo(ZK_OPCODES.createContainer, dir);
    // B's create and its listing are on their way, held at B's proxy, when A deletes the directory.
    const listingsBefore = b.proxy.requestsTo(ZK_OPCODES.getChildren2, dir);
    b.proxy.holdRequests();
    const acquiring = creator.acquire('k', { timeoutMs: 20_000 });
    await pollUntil(() => b.proxy.requestsTo(ZK_OPCODES.getChildren2, dir) > listingsBefore, 10_000, "B's create and listing at its proxy");
    await deleter.withLock('k', () => undefined);
    expect(await gone(observer, dir)).toBe('gone');
    b.proxy.heal();
    const handle = await acquiring;
    expect(handle.path.startsWith(`${dir}/`)).toBe(true);
    // A new incarnation of the directory, made by B (its create found none).
    expect((await observer.exists(dir))!.czxid).toBeGreaterThan(before);
    expect(b.proxy.requestsTo(ZK_OPCODES.createContainer, dir)).toBe(madeBefore + 1);
    await handle.release();
  });

  it('two processes deleting and re-creating the same keys in a loop: every acquisition succeeds, one holder per key at a time', async () => {
    const base = `${root}/race-loop`;
    const keys = ['a', 'b', 'c'];
    const contenders = await Promise.all([connectThroughProxy(), connectThroughProxy()]);
    const sets = contenders.map((t) => new MutexSet(t.session, base, { deleteIdleDirectories: true }));
    const sections = new Map<string, Interval[]>(keys.map((key) => [key, []]));
    const failures: unknown[] = [];
    const task = async (set: MutexSet, worker: string, seed: number) => {
      for (let i = 0; i < 40; i++) {
        const key = keys[(seed + i * 7) % keys.length]!;
        let handle: LockHandle;
        try {
          handle = await set.acquire(key, { timeoutMs: 30_000 });
        } catch (err) {
          failures.push(err);
          continue;
        }
        const start = process.hrtime.bigint();
        await new Promise((resolve) => setImmediate(resolve));
        const end = process.hrtime.bigint();
        await handle.release();
        sections.get(key)!.push({ worker, start, end });
      }
    };
    await Promise.all(sets.flatMap((set, s) => [0, 1, 2].map((t) => task(set, `set${s}-task${t}`, s * 3 + t))));
    expect(failures).toEqual([]);
    for (const [key, intervals] of sections) {
      expect(intervals, `sections of ${key}`).toHaveLength(80);
      expect(findOverlaps(intervals), `exclusion of key ${key}`).toEqual([]);
    }
    // The race did happen: creates found a key's directory deleted and made it again (each key's
    // first acquisition made it once).
    const made = contenders.map((t) => keys.reduce((n, key) => n + t.proxy.requestsTo(ZK_OPCODES.createContainer, `${base}/${key}`), 0));
    expect(made[0]! + made[1]!, `directories made: ${made.join(', ')}`).toBeGreaterThan(2 * keys.length);
  });
});
