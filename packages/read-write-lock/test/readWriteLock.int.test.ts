import { ZkSession } from '@zk-recipes/core';
import { sortedChildren } from '@zk-recipes/core/recipe-kit';
import { InterProcessReadWriteLock, type LockHandle } from '@zk-recipes/read-write-lock';
import { expireSession, FaultProxy, pollUntil, serverWatchedPaths, testConnectString, uniqueRoot } from '@zk-recipes/testing';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { childrenOf, deferred, proxyToTestServer, untilChildren } from './support/zk.js';
import { sessionInternals } from '@zk-recipes/core/internal';
import { caughtUp } from '../../core/test/support/adversary.js';

const root = uniqueRoot('read-write-lock');
const sessions: ZkSession[] = [];
const proxies: FaultProxy[] = [];
let counter = 0;
const freshPath = () => `${root}/lock-${++counter}`;

async function connect(): Promise<ZkSession> {
  const session = await ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs: 4000 });
  sessions.push(session);
  return session;
}
/** ZooKeeper opcodes, as the proxy sees them. ZkSession sends every non-container create as CREATE2. */
const OP_EXISTS = 3;
const OP_GET_DATA = 4;
const OP_GET_CHILDREN2 = 12;
const OP_MULTI = 14;
const OP_REMOVE_WATCHES = 18;
/** Requests that write nothing (`proxy.tally().byOp` names). */
const READS = new Set(['getChildren2', 'getData', 'exists', 'removeWatches']);

/** A session whose frames a proxy in front of the test server records (both closed after the test). */
async function connectThroughProxy(): Promise<{ session: ZkSession; proxy: FaultProxy }> {
  const proxy = await proxyToTestServer();
  proxies.push(proxy);
  const session = await ZkSession.connect({ connectString: proxy.connectString, sessionTimeoutMs: 4000 });
  sessions.push(session);
  return { session, proxy };
}

/**
 * Resolves once the server has answered `count` watch requests on the node `nodePath` from the
 * sessions behind `proxy`: a waiter watches a node for its deletion only, with a child watch (a
 * getChildren of the node), which ZooKeeper 3.8's `wchp` does not list. Answered means set.
 */
function untilChildWatched(proxy: FaultProxy, nodePath: string, count = 1, what = `the deletion watch on ${nameOf(nodePath)}`): Promise<boolean> {
  return pollUntil(() => proxy.answersTo(OP_GET_CHILDREN2, nodePath) >= count, 5000, what);
}

/** Resolves once the server has answered `count` `exists` watches on `nodePath` (a downgrade read node's name) from `proxy`'s sessions. */
function untilCreationWatched(proxy: FaultProxy, nodePath: string, count = 1): Promise<boolean> {
  return pollUntil(() => proxy.answersTo(OP_EXISTS, nodePath) >= count, 5000, `the creation watch on ${nameOf(nodePath)}`);
}

/**
 * Resolves once a listing of `dir` sent through `proxy` after `answered` (an earlier
 * `proxy.answersTo(OP_GET_CHILDREN2, dir)`) has been answered, and `session` has decided on it.
 */
async function untilListedAndDecided(proxy: FaultProxy, session: ZkSession, dir: string, answered: number, what: string): Promise<void> {
  await pollUntil(() => proxy.answersTo(OP_GET_CHILDREN2, dir) > answered, 5000, what);
  await caughtUp(session);
}

/** The name a downgrade gives the read node at this write node's place. */
const downgradePathOf = (writePath: string) => writePath.replace(/-write-(\d{10})$/, '-read-$1');

/**
 * Two sessions and a fresh lock on the first, for a writer that runs in an async context of its
 * own: it says when it holds (`writerHolds`) and waits to be let go (`letWriterGo`).
 */
async function writerInAContextOfItsOwn() {
  const [s1, s2] = await Promise.all([connect(), connect()]);
  const path = freshPath();
  return { s1, s2, path, rw: new InterProcessReadWriteLock(s1, path), writerHolds: deferred(), letWriterGo: deferred() };
}

/**
 * A session behind a FaultProxy holding the write lock of a fresh path, an observer session, and
 * `body` run with them.
 */
async function writerBehindProxy(
  body: (t: { proxy: FaultProxy; observer: ZkSession; path: string; rw: InterProcessReadWriteLock; write: LockHandle }) => Promise<void>,
): Promise<void> {
  const { session: flaky, proxy } = await connectThroughProxy();
  const observer = await connect();
  const path = freshPath();
  const rw = new InterProcessReadWriteLock(flaky, path);
  const write = await rw.writeLock().acquire();
  await body({ proxy, observer, path, rw, write });
}

/** Starts an acquisition; `holds()` tells whether it has been granted yet. */
function startAcquiring(lock: { acquire(): Promise<LockHandle> }): { granted: Promise<LockHandle>; holds: () => boolean } {
  let held = false;
  const granted = lock.acquire().then((handle) => ((held = true), handle));
  return { granted, holds: () => held };
}

/** Child names in queue order (by sequence). */
const queueOrder = (children: string[]) => sortedChildren(children).map((entry) => entry.name);
const nameOf = (path: string) => path.slice(path.lastIndexOf('/') + 1);
const sequenceOf = (path: string) => path.slice(-10);

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.close()));
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
});
afterAll(async () => {
  const session = await ZkSession.connect({ connectString: testConnectString() });
  for (const child of await childrenOf(session, root)) await session.delete(`${root}/${child}`).catch(() => undefined);
  await session.delete(root).catch(() => undefined);
  await session.close();
});

describe('InterProcessReadWriteLock', () => {
  it('readers share; a writer waits for them, then excludes readers', async () => {
    const [s1, s2, s3] = await Promise.all([connect(), connect(), connect()]);
    const path = freshPath();
    const a = new InterProcessReadWriteLock(s1, path);
    const b = new InterProcessReadWriteLock(s2, path);
    const c = new InterProcessReadWriteLock(s3, path);
    expect(a.readLock()).toBe(a.readLock());

    const ra = await a.readLock().acquire();
    const rb = await b.readLock().acquire();
    expect(nameOf(ra.path)).toMatch(/^_c_[0-9a-f-]{36}-read-\d{10}$/);
    expect(await c.readLock().getParticipantNodes()).toEqual([ra.path, rb.path]);
    expect(await c.writeLock().getParticipantNodes()).toEqual([]);

    expect(await c.writeLock().tryAcquire()).toBeNull();
    await untilChildren(s3, path, (ch) => ch.length === 2); // the try's node: its delete, sent before it settled or once its create's reply came (docs/architecture.md, "Deadlines")
    expect(await childrenOf(s3, path)).toHaveLength(2);

    const writing = c.writeLock().acquire();
    const [writeNode] = (await untilChildren(s3, path, (ch) => ch.length === 3)).filter((n) => n.includes('-write-'));
    expect(writeNode).toMatch(/^_c_[0-9a-f-]{36}-write-\d{10}$/);
    await ra.release();
    await rb.release();
    const w = await writing;
    expect(nameOf(w.path)).toBe(writeNode);
    expect(c.writeLock().isOwnedByCurrentContext()).toBe(true);
    expect(await a.readLock().tryAcquire()).toBeNull();
    expect(await b.writeLock().tryAcquire()).toBeNull();
    await untilChildren(s1, path, (ch) => ch.length === 1); // b's try: its delete, sent before it settled
    expect(await childrenOf(s1, path)).toEqual([writeNode]);
    await w.release();
    expect(await childrenOf(s1, path)).toEqual([]);
  });

  it('is strictly FIFO: readers arriving after a waiting writer queue behind it (writers are never starved)', async () => {
    const [s1, s2, s3] = await Promise.all([connect(), connect(), connect()]);
    const path = freshPath();
    const r0 = await new InterProcessReadWriteLock(s1, path).readLock().acquire();
    const order: string[] = [];
    const writer = new InterProcessReadWriteLock(s2, path).writeLock();
    const writing = writer.acquire().then((handle) => (order.push('writer'), handle));
    await untilChildren(s3, path, (ch) => ch.length === 2);

    // Without FIFO these readers would join r0 at once and could keep the writer out forever.
    const late = Array.from({ length: 4 }, () => new InterProcessReadWriteLock(s3, path).readLock());
    expect(await late[0]!.tryAcquire()).toBeNull();
    const reading = late.map((lock, i) => lock.acquire().then((handle) => (order.push(`reader${i}`), handle)));
    await untilChildren(s3, path, (ch) => ch.length === 6);

    await r0.release();
    const w = await writing;
    expect(order).toEqual(['writer']);
    await w.release();
    const handles = await Promise.all(reading);
    // All four hold the read lock together.
    expect(handles.every((handle) => handle.held)).toBe(true);
    expect(order[0]).toBe('writer');
    for (const handle of handles) await handle.release();
  });

  it('is re-entrant by async context; another context of the process does not get the read lock while one holds the write lock', async () => {
    const { s1, s2, path, rw, writerHolds, letWriterGo } = await writerInAContextOfItsOwn();
    const writer = (async () => {
      const outer = await rw.writeLock().acquire();
      const inner = await rw.writeLock().acquire();
      expect(inner.path).toBe(outer.path);
      await inner.release();
      expect(rw.writeLock().isOwnedByCurrentContext()).toBe(true);
      writerHolds.resolve();
      await letWriterGo.promise;
      await outer.release();
    })();
    await writerHolds.promise;
    expect(rw.writeLock().isAcquiredInThisProcess()).toBe(true);
    expect(rw.writeLock().isOwnedByCurrentContext()).toBe(false);

    let readerHeld = false;
    const reader = (async () => {
      const handle = await rw.readLock().acquire();
      readerHeld = true;
      const nested = await rw.readLock().acquire();
      expect(nested.path).toBe(handle.path);
      await nested.release();
      return handle;
    })();
    const listed = await untilChildren(s2, path, (ch) => ch.length === 2);
    expect(listed.filter((n) => n.includes('-read-'))).toHaveLength(1);
    // Its node queues behind the write node: the rule can only say "wait".
    await s1.getChildren(path);
    expect(readerHeld).toBe(false);
    letWriterGo.resolve();
    await writer;
    const handle = await reader;
    expect(readerHeld).toBe(true);
    // Two independent readers of one process share the lock, each with its own node.
    const second = await (async () => rw.readLock().acquire())();
    expect(second.path).not.toBe(handle.path);
    await second.release();
    await handle.release();
    expect(await childrenOf(s2, path)).toEqual([]);
  });

  it('independent contexts of one process exclude each other on the write lock', async () => {
    const s1 = await connect();
    const path = freshPath();
    const rw = new InterProcessReadWriteLock(s1, path);
    let inside = 0;
    let maxInside = 0;
    const task = async () => {
      const handle = await rw.writeLock().acquire();
      maxInside = Math.max(maxInside, ++inside);
      await s1.getChildren(path); // a real round trip while holding
      inside--;
      await handle.release();
    };
    await Promise.all([task(), task(), task()]);
    expect(maxInside).toBe(1);
  });

  it('refuses an upgrade at once with UPGRADE_NOT_SUPPORTED, leaving no node', async () => {
    const s1 = await connect();
    const path = freshPath();
    const rw = new InterProcessReadWriteLock(s1, path);
    const read = await rw.readLock().acquire();
    await expect(rw.writeLock().acquire()).rejects.toMatchObject({ code: 'UPGRADE_NOT_SUPPORTED', name: 'UpgradeNotSupportedError' });
    await expect(rw.writeLock().tryAcquire()).rejects.toMatchObject({ code: 'UPGRADE_NOT_SUPPORTED' });
    expect(await childrenOf(s1, path)).toEqual([nameOf(read.path)]);
    await read.release();
    // Once the read lock is released the same context may take the write lock.
    const write = await rw.writeLock().acquire();
    await write.release();
  });

  it('CURATOR-621: after a downgrade, a writer queued behind does not get the write lock until the read lock is released', async () => {
    const s1 = await connect();
    const { session: s2, proxy } = await connectThroughProxy();
    const path = freshPath();
    const a = new InterProcessReadWriteLock(s1, path);
    const b = new InterProcessReadWriteLock(s2, path);

    const aWrite = await a.writeLock().acquire();
    let readReleaseStarted = false;
    let bGotItEarly = false;
    const bWriting = b.writeLock().acquire().then((handle) => {
      bGotItEarly = !readReleaseStarted;
      return handle;
    });
    await untilChildren(s1, path, (ch) => ch.length === 2);
    // B has decided to wait for A's write node as its last obstacle: the server holds its watch
    // for that node's deletion, and its watch for the creation of the read node at A's place.
    await untilChildWatched(proxy, aWrite.path);
    await untilCreationWatched(proxy, downgradePathOf(aWrite.path));

    const downgradeAt = performance.now();
    const aRead = await a.readLock().acquire(); // downgrade: at once, though B waits
    // The read node's grant is its own moment, checked like any other.
    expect(aRead.grantedAt).toBeGreaterThan(downgradeAt);
    expect(aRead.grantedAt).toBeGreaterThan(aWrite.grantedAt);
    expect(nameOf(aRead.path)).toMatch(new RegExp(`^_c_[0-9a-f-]{36}-read-${sequenceOf(aWrite.path)}$`));
    expect(a.readLock().isOwnedByCurrentContext() && a.writeLock().isOwnedByCurrentContext()).toBe(true);

    await aWrite.release();
    // ZooKeeper delivers B's watch event before the replies to B's session's later requests, and
    // B's own re-listing is queued ahead of these: give B every chance to (wrongly) take the lock.
    for (let i = 0; i < 3; i++) await s2.getChildren(path);
    expect(bGotItEarly).toBe(false);
    expect((await childrenOf(s1, path)).map((n) => n.replace(/^_c_[0-9a-f-]{36}-/, '').replace(/\d{10}$/, ''))).toEqual(
      expect.arrayContaining(['read-', 'write-']),
    );

    readReleaseStarted = true;
    await aRead.release();
    const bWrite = await bWriting;
    expect(bGotItEarly).toBe(false);
    expect(await childrenOf(s1, path)).toEqual([nameOf(bWrite.path)]);
    // Nothing but nodes' creations and deletions was written: no holder announces itself.
    expect((await s1.exists(bWrite.path))?.version).toBe(0);
    await bWrite.release();
    expect(Object.keys(proxy.tally().byOp).filter((op) => op !== 'create2' && op !== 'delete' && !READS.has(op))).toEqual([]);
  });

  it("bytes given as data are the lock's own: a caller who reuses its buffer afterwards does not change what either half writes", async () => {
    const session = await connect();
    const bytes = Buffer.from('host-a');
    const rw = new InterProcessReadWriteLock(session, freshPath(), { data: bytes });
    bytes.write('XXXXXX');
    for (const half of [rw.readLock(), rw.writeLock()]) {
      const handle = await half.acquire();
      expect((await session.getData(handle.path)).data.toString()).toBe('host-a');
      await handle.release();
    }
  });

  it("50 readers of one process two behind another process's writer: the holder's going costs them one listing in all, and the writer's going grants them all with no request", async () => {
    const [sH, sW] = await Promise.all([connect(), connect()]);
    const { session: sR, proxy } = await connectThroughProxy();
    const path = freshPath();
    const first = await new InterProcessReadWriteLock(sH, path).writeLock().acquire();
    const writing = new InterProcessReadWriteLock(sW, path).writeLock().acquire();
    await untilChildren(sH, path, (ch) => ch.length === 2);
    const writerPath = `${path}/${queueOrder(await childrenOf(sH, path))[1]!}`;
    const readers = new InterProcessReadWriteLock(sR, path);
    // Each in an async context of its own: 50 readers, one session.
    const reading = Array.from({ length: 50 }, () => (async () => readers.readLock().acquire())());
    for (const r of reading) r.catch(() => undefined); // a failed assertion closes the session under them
    await untilChildren(sH, path, (ch) => ch.length === 52);
    // Each reader waits for the writer and watches the holder ahead of it, both for their deletion only.
    await untilChildWatched(proxy, writerPath, 50, "the readers' watches on the writer");
    await untilChildWatched(proxy, first.path, 50, "the readers' watches on the holder");
    const listingsBefore = proxy.requestsTo(OP_GET_CHILDREN2, path);
    const answeredBefore = proxy.answersTo(OP_GET_CHILDREN2, path);
    await first.release();
    const second = await writing;
    // The holder's going reached the session once and woke all 50: they share one listing, made
    // while the writer holds, which shows each of them that the writer is its last obstacle.
    await untilListedAndDecided(proxy, sR, path, answeredBefore, "the readers' listing once the holder went");
    expect(proxy.requestsTo(OP_GET_CHILDREN2, path) - listingsBefore).toBe(1);
    expect((await sH.exists(second.path))?.version).toBe(0); // nothing announced
    const mark = proxy.frames.length;
    await second.release();
    const held = await Promise.all(reading);
    // Its deletion granted all 50: not one request, no listing, no read, no watch set again.
    expect(proxy.requestTypesSince(mark)).toEqual([]);
    expect(proxy.tally().byOp['getData']).toBeUndefined();
    await Promise.all(held.map((h) => h.release()));
    expect(await childrenOf(sH, path)).toEqual([]);
  });

  for (const third of ['writer', 'reader'] as const) {
    it(`the ${third} two behind a holder learns when the holder goes that the writer between is its last obstacle: it takes the lock on that writer's deletion event, listing nothing after it`, async () => {
      const [s1, s2] = await Promise.all([connect(), connect()]);
      const { session: s3, proxy } = await connectThroughProxy();
      const path = freshPath();
      const first = await new InterProcessReadWriteLock(s1, path).writeLock().acquire();
      const secondWriting = new InterProcessReadWriteLock(s2, path).writeLock().acquire();
      await untilChildren(s1, path, (ch) => ch.length === 2);
      const secondPath = `${path}/${queueOrder(await childrenOf(s1, path))[1]!}`;
      const rw3 = new InterProcessReadWriteLock(s3, path);
      const thirdAcquiring = startAcquiring(third === 'writer' ? rw3.writeLock() : rw3.readLock());
      await untilChildren(s1, path, (ch) => ch.length === 3);
      // The third waits for the second and watches the first, both for their deletion only; a
      // writer also watches for the creation of the second's downgrade read node.
      await untilChildWatched(proxy, secondPath);
      await untilChildWatched(proxy, first.path);
      if (third === 'writer') await untilCreationWatched(proxy, downgradePathOf(secondPath));
      const mark = proxy.frames.length;
      const listings = proxy.requestsTo(OP_GET_CHILDREN2, path);
      const answered = proxy.answersTo(OP_GET_CHILDREN2, path);
      await first.release();
      const second = await secondWriting;
      await untilListedAndDecided(proxy, s3, path, answered, "the third's listing once the first went");
      expect(thirdAcquiring.holds()).toBe(false);
      // Granted after waiting, the second wrote nothing: its node is as it was created.
      expect((await s1.exists(second.path))?.version).toBe(0);
      const released = proxy.frames.length;
      await second.release();
      const last = await thirdAcquiring.granted;
      // One listing in all, made while the second held; no read of any node's data.
      expect(proxy.requestsTo(OP_GET_CHILDREN2, path) - listings).toBe(1);
      expect(proxy.requestTypesSince(mark)).not.toContain(OP_GET_DATA);
      // The second's deletion granted the third: it sent nothing after it but, for a writer, the
      // removal of its watch on the read node's name, which never came.
      await s3.exists(path); // after that removal
      expect(proxy.requestTypesSince(released)).toEqual(third === 'writer' ? [OP_REMOVE_WATCHES, OP_EXISTS] : [OP_EXISTS]);
      // No watch is left behind for every hand-off. (The child watch on its own node stays while it
      // holds; `wchp` lists data and exists watches only.)
      expect(await serverWatchedPaths(testConnectString(), s3.sessionIdBigInt)).toEqual(new Set());
      await last.release();
      expect(await childrenOf(s1, path)).toEqual([]);
    });
  }

  for (const where of ['another process', 'the same process'] as const) {
    it(`CURATOR-621 after waiting: a writer of ${where} queued behind a writer that was granted after waiting and downgraded does not get the lock until the read lock is released`, async () => {
      const s0 = await connect();
      const { session: s1, proxy: aProxy } = await connectThroughProxy();
      const { session: s2, proxy: bProxy } = where === 'another process' ? await connectThroughProxy() : { session: s1, proxy: aProxy };
      const path = freshPath();
      const blocker = await new InterProcessReadWriteLock(s0, path).writeLock().acquire();
      const a = new InterProcessReadWriteLock(s1, path);
      const aGranted = deferred<string>();
      const downgradeAndReleaseWrite = deferred();
      const writeReleased = deferred<string>();
      const releaseRead = deferred();
      let readReleaseStarted = false;
      // A and B each in its own async context: in the same process they queue like two processes.
      const aSide = (async () => {
        const write = await a.writeLock().acquire();
        aGranted.resolve(write.path);
        await downgradeAndReleaseWrite.promise;
        const read = await a.readLock().acquire(); // downgrade: at once, though B waits
        await write.release();
        writeReleased.resolve(read.path);
        await releaseRead.promise;
        readReleaseStarted = true;
        await read.release();
      })();
      const aWritePath = `${path}/${queueOrder(await untilChildren(s0, path, (ch) => ch.length === 2))[1]!}`;
      let bGotItEarly = false;
      const bSide = (async () => {
        const handle = await new InterProcessReadWriteLock(s2, path).writeLock().acquire();
        bGotItEarly = !readReleaseStarted;
        return handle;
      })();
      await untilChildren(s0, path, (ch) => ch.length === 3);
      // B waits for A's write node (in the same process, its own watch on A's node comes first).
      await untilChildWatched(bProxy, aWritePath, where === 'another process' ? 1 : 2);
      const answered = bProxy.answersTo(OP_GET_CHILDREN2, path);
      if (where === 'another process') {
        // ...and watches the blocker ahead of it, and for the read node at A's place.
        await untilChildWatched(bProxy, blocker.path);
        await untilCreationWatched(bProxy, downgradePathOf(aWritePath));
      }
      await blocker.release();
      expect(await aGranted.promise).toBe(aWritePath);
      if (where === 'another process') {
        // B listed when the blocker went: A is its last obstacle now, and A's going alone would
        // grant it. Only its watch for the read node's creation stands in the way.
        await untilListedAndDecided(bProxy, s2, path, answered, "B's listing once the blocker went");
      } else {
        // A of this process holds now: its going as a holder would grant B at once, unless its
        // place stays taken.
        await caughtUp(s1);
      }
      expect((await s0.exists(aWritePath))?.version).toBe(0); // nothing announced
      downgradeAndReleaseWrite.resolve();
      const readPath = await writeReleased.promise;
      expect(sequenceOf(readPath)).toBe(sequenceOf(aWritePath));
      // B's watch event (or its local hand-over) came before the replies to these.
      for (let i = 0; i < 3; i++) await s2.getChildren(path);
      expect(bGotItEarly).toBe(false);
      expect(await childrenOf(s0, path)).toHaveLength(2);
      releaseRead.resolve();
      await aSide;
      const b = await bSide;
      expect(bGotItEarly).toBe(false);
      await b.release();
      expect(await childrenOf(s0, path)).toEqual([]);
    });
  }

  it('a writer behind readers that hold watches them all: it takes the lock when the last goes, in any order, sending nothing', async () => {
    const readerSessions = await Promise.all([connect(), connect(), connect()]);
    const { session: ws, proxy } = await connectThroughProxy();
    const path = freshPath();
    const reads = await Promise.all(readerSessions.map((s) => new InterProcessReadWriteLock(s, path).readLock().acquire()));
    const writer = startAcquiring(new InterProcessReadWriteLock(ws, path).writeLock());
    // A deletion watch on each of the three readers.
    for (const read of reads) await untilChildWatched(proxy, read.path);
    const mark = proxy.frames.length;
    // Its immediate predecessor first (the textbook writer would list again here), then the rest.
    for (const read of [reads[2]!, reads[0]!]) {
      await read.release();
      await ws.exists(path); // the writer's watch events come before this reply
      expect(writer.holds()).toBe(false);
    }
    await reads[1]!.release();
    const write = await writer.granted;
    // From the first release to the grant it sent nothing at all (the two requests are this
    // test's): no listing, no read, no watch set again, none left to remove.
    expect(proxy.requestTypesSince(mark)).toEqual([OP_EXISTS, OP_EXISTS]);
    await write.release();
    expect(await childrenOf(ws, path)).toEqual([]);
  });

  for (const middleIn of ['another process', 'the same process'] as const) {
    it(`a writer behind readers queued after a writer of ${middleIn}: once that writer has gone it watches the readers, and takes the lock when the last goes, listing nothing after the writer went`, async () => {
      const [s0, s2, s3] = await Promise.all([connect(), connect(), connect()]);
      const { session: ws, proxy } = await connectThroughProxy();
      const s1 = middleIn === 'another process' ? await connect() : ws;
      const path = freshPath();
      const first = await new InterProcessReadWriteLock(s0, path).readLock().acquire();
      const middleWriting = (async () => new InterProcessReadWriteLock(s1, path).writeLock().acquire())();
      const middlePath = `${path}/${queueOrder(await untilChildren(s0, path, (ch) => ch.length === 2))[1]!}`;
      const readersReading = [s2, s3].map((s) => new InterProcessReadWriteLock(s, path).readLock().acquire());
      await untilChildren(s0, path, (ch) => ch.length === 4);
      const writer = startAcquiring(new InterProcessReadWriteLock(ws, path).writeLock());
      const queue = queueOrder(await untilChildren(s0, path, (ch) => ch.length === 5)).map((name) => `${path}/${name}`);
      // It waits for the middle writer (in the same process, the middle's own watch on its node
      // comes first), watching for its downgrade read node; of another process, it also watches
      // the reader ahead of it.
      await untilChildWatched(proxy, middlePath, middleIn === 'another process' ? 1 : 2);
      if (middleIn === 'another process') {
        await untilChildWatched(proxy, first.path);
        await untilCreationWatched(proxy, downgradePathOf(middlePath));
      }
      const mark = proxy.frames.length;
      const listings = proxy.requestsTo(OP_GET_CHILDREN2, path);
      const answered = proxy.answersTo(OP_GET_CHILDREN2, path);
      await first.release();
      const middle = await middleWriting;
      if (middleIn === 'another process') {
        // The reader ahead of the middle went: it lists, finds the middle at the head with readers
        // behind it, and watches them all (the middle again, and the readers).
        await untilListedAndDecided(proxy, ws, path, answered, "the writer's listing once the first reader went");
        for (const reader of [queue[2]!, queue[3]!]) await untilChildWatched(proxy, reader);
        await untilChildWatched(proxy, middlePath, 2);
      } else {
        await caughtUp(ws); // the middle holds; the writer has no reason to list
      }
      expect((await s0.exists(middle.path))?.version).toBe(0); // nothing announced
      const listingsAtRelease = proxy.requestsTo(OP_GET_CHILDREN2, path);
      await middle.release();
      const readers = await Promise.all(readersReading);
      await ws.exists(path);
      expect(writer.holds()).toBe(false);
      await readers[1]!.release();
      await ws.exists(path);
      expect(writer.holds()).toBe(false);
      await readers[0]!.release();
      const write = await writer.granted;
      // Another process's middle writer cost it one listing, when the reader ahead of the middle
      // went; a middle of its own process none: its going as a holder leaves the readers behind it
      // first, and the writer watches them without listing.
      expect(proxy.requestsTo(OP_GET_CHILDREN2, path) - listings).toBe(middleIn === 'another process' ? 1 : 0);
      expect(proxy.requestsTo(OP_GET_CHILDREN2, path)).toBe(listingsAtRelease);
      expect(proxy.requestTypesSince(mark)).not.toContain(OP_GET_DATA);
      // Its watch for the middle's downgrade read node, which never came, is removed.
      await ws.exists(path);
      expect(await serverWatchedPaths(testConnectString(), ws.sessionIdBigInt)).toEqual(new Set());
      await write.release();
      expect(await childrenOf(s0, path)).toEqual([]);
    });
  }

  for (const ahead of ['at the head', 'granted after waiting'] as const) {
    it(`CURATOR-621 with readers between: a writer behind a writer ${ahead} that downgrades does not get the lock until the read lock is released`, async () => {
      const [s0, s1, s2] = await Promise.all([connect(), connect(), connect()]);
      const { session: s3, proxy } = await connectThroughProxy();
      const path = freshPath();
      // "granted after waiting": a reader holds first, so the writer waits behind it.
      const blocker = ahead === 'granted after waiting' ? await new InterProcessReadWriteLock(s0, path).readLock().acquire() : undefined;
      const a = new InterProcessReadWriteLock(s1, path);
      const aWriting = a.writeLock().acquire();
      const before = blocker === undefined ? 1 : 2;
      if (blocker === undefined) await aWriting;
      else await untilChildren(s0, path, (ch) => ch.length === before);
      const reading = new InterProcessReadWriteLock(s2, path).readLock().acquire();
      await untilChildren(s0, path, (ch) => ch.length === before + 1);
      const b = startAcquiring(new InterProcessReadWriteLock(s3, path).writeLock());
      const children = queueOrder(await untilChildren(s0, path, (ch) => ch.length === before + 2));
      const aPath = `${path}/${children.find((n) => n.includes('-write-'))!}`;
      const readerPath = `${path}/${children[before]!}`;
      // B watches A's write node for its deletion, and its read node's name for its creation: at
      // the head, beside the reader (it takes the lock without listing when both have gone);
      // behind the blocker, alone, watching the blocker too.
      await untilChildWatched(proxy, aPath);
      await untilCreationWatched(proxy, downgradePathOf(aPath));
      if (blocker !== undefined) await untilChildWatched(proxy, blocker.path);
      const answered = proxy.answersTo(OP_GET_CHILDREN2, path);
      await blocker?.release();
      const aWrite = await aWriting;
      if (blocker !== undefined) {
        // B listed when the blocker went, and watches A and the reader now, as at the head.
        await untilListedAndDecided(proxy, s3, path, answered, "B's listing once the blocker went");
        await untilChildWatched(proxy, aPath, 2);
        await untilCreationWatched(proxy, downgradePathOf(aPath), 2);
      }
      await untilChildWatched(proxy, readerPath);
      const aRead = await a.readLock().acquire(); // the downgrade: at the write node's place
      await aWrite.release();
      const read = await reading;
      await read.release();
      // B's watch events came before the replies to these: the read node still bars its way.
      for (let i = 0; i < 3; i++) await s3.getChildren(path);
      expect(b.holds()).toBe(false);
      await aRead.release();
      // Granted only now: the read lock's release is what let it in.
      await (await b.granted).release();
      expect(await childrenOf(s0, path)).toEqual([]);
    });
  }

  describe('waits that watch for a downgrade node, under unlucky timing', () => {
    /** Whether the proxy has received the server's answer to a listing sent since `mark`. */
    const listingAnswered = (proxy: FaultProxy, mark: number): boolean => {
      const frames = proxy.frames.slice(mark);
      const listings = new Set(frames.filter((f) => f.direction === 'request' && f.type === OP_GET_CHILDREN2).map((f) => f.xid));
      return frames.some((f) => f.direction === 'reply' && listings.has(f.xid));
    };
    /**
     * The writer (`waiter`, on `session`) must still be waiting behind the downgrade's read lock:
     * its events came before the replies to three requests of its session. Released, the read lock
     * lets it in, and nothing is left.
     */
    const expectStillWaitingFor = async (read: LockHandle, w: { waiter: ReturnType<typeof startAcquiring>; session: ZkSession; observer: ZkSession; path: string }) => {
      for (let i = 0; i < 3; i++) await w.session.getChildren(w.path);
      expect(w.waiter.holds()).toBe(false);
      await read.release();
      await (await w.waiter.granted).release();
      expect(await childrenOf(w.observer, w.path)).toEqual([]);
    };

    it('a writer whose listing predates the downgrade and the write release does not get the lock until the read lock is released (CURATOR-621)', async () => {
      const s0 = await connect();
      const { session: sb, proxy } = await connectThroughProxy();
      const path = freshPath();
      const rw0 = new InterProcessReadWriteLock(s0, path);
      const write = await rw0.writeLock().acquire();
      const mark = proxy.frames.length;
      proxy.holdReplies();
      const b = startAcquiring(new InterProcessReadWriteLock(sb, path).writeLock());
      // B's node and listing are on the server; B has not seen the answers yet.
      await pollUntil(async () => listingAnswered(proxy, mark), 5000, "the answer to B's listing");
      const read = await rw0.readLock().acquire(); // the downgrade
      await write.release();
      proxy.heal();
      // B decides on [write node, B], and then finds the write node gone: the read node it
      // watches for is there, and is what it must wait for.
      await expectStillWaitingFor(read, { waiter: b, session: sb, observer: s0, path });
    });

    it('a writer that waited through a reconnection lists again: the server replays deletions before creations', async () => {
      const [s0, s1] = await Promise.all([connect(), connect()]);
      const { session: sb, proxy } = await connectThroughProxy();
      const path = freshPath();
      const rw0 = new InterProcessReadWriteLock(s0, path);
      const write = await rw0.writeLock().acquire();
      const reading = new InterProcessReadWriteLock(s1, path).readLock().acquire();
      const readerPath = `${path}/${queueOrder(await untilChildren(s0, path, (ch) => ch.length === 2))[1]!}`;
      const b = startAcquiring(new InterProcessReadWriteLock(sb, path).writeLock());
      await untilChildren(s0, path, (ch) => ch.length === 3);
      // B watches the write node and the reader for their deletion, and the name the downgrade
      // would create (an exists watch: `wchp` shows it).
      const downgradePath = downgradePathOf(write.path);
      await pollUntil(async () => (await serverWatchedPaths(testConnectString(), sb.sessionIdBigInt)).has(downgradePath), 5000, "B's creation watch");
      await untilChildWatched(proxy, write.path);
      await untilChildWatched(proxy, readerPath);
      proxy.refuseConnections(true);
      proxy.dropConnections();
      const read = await rw0.readLock().acquire(); // the downgrade, while B is away
      await write.release();
      await (await reading).release();
      proxy.refuseConnections(false);
      await sb.waitForConnected(AbortSignal.timeout(10_000));
      await expectStillWaitingFor(read, { waiter: b, session: sb, observer: s0, path });
    });

    it('a writer of the same process behind a writer granted after waiting, whose downgrade was aborted, gets the lock when that writer goes', async () => {
      const s0 = await connect();
      const { session: sx, proxy } = await connectThroughProxy();
      const path = freshPath();
      const blocker = await new InterProcessReadWriteLock(s0, path).writeLock().acquire();
      const rw = new InterProcessReadWriteLock(sx, path);
      const aGranted = deferred<string>();
      const aGoes = deferred();
      // A and B each in its own async context: in one process they queue like two processes.
      const aSide = (async () => {
        const write = await rw.writeLock().acquire();
        aGranted.resolve(write.path);
        await aGoes.promise;
        // The downgrade gives up before its create: A's place was marked as kept, and no read
        // node stands there.
        await expect(rw.readLock().acquire({ signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'ABORTED' });
        await write.release();
      })();
      const aPath = `${path}/${queueOrder(await untilChildren(s0, path, (ch) => ch.length === 2))[1]!}`;
      const bSide = (async () => rw.writeLock().acquire({ timeoutMs: 5000 }))();
      await untilChildren(s0, path, (ch) => ch.length === 3);
      // B waits for A's node (A's own watch on it comes first).
      await untilChildWatched(proxy, aPath, 2);
      await blocker.release();
      expect(await aGranted.promise).toBe(aPath);
      expect((await s0.exists(aPath))?.version).toBe(0); // nothing announced
      const listings = proxy.requestsTo(OP_GET_CHILDREN2, path);
      aGoes.resolve();
      await aSide;
      // LOCK_TIMEOUT if B took A's marked place for one that stays taken and never looked again.
      const b = await bSide;
      // At most one listing: the one that shows B first.
      expect(proxy.requestsTo(OP_GET_CHILDREN2, path) - listings).toBeLessThanOrEqual(1);
      await b.release();
      expect(await childrenOf(s0, path)).toEqual([]);
    });

    it('a wait given up while its watch requests are out leaves no watch on the server', async () => {
      const s0 = await connect();
      const { session: sb, proxy } = await connectThroughProxy();
      const path = freshPath();
      const write = await new InterProcessReadWriteLock(s0, path).writeLock().acquire();
      const mark = proxy.frames.length;
      proxy.holdReplies();
      const controller = new AbortController();
      const acquiring = new InterProcessReadWriteLock(sb, path).writeLock().acquire({ signal: controller.signal });
      acquiring.catch(() => undefined);
      await pollUntil(async () => listingAnswered(proxy, mark), 5000, "the answer to B's listing");
      proxy.heal();
      proxy.holdReplies(); // B's listing gets through; the answers to its watch requests do not
      // Its creation watch on the read node's name, then its deletion watch on the write node.
      await pollUntil(() => proxy.requestTypesSince(mark).includes(OP_EXISTS) && proxy.requestsTo(OP_GET_CHILDREN2, write.path) > 0, 5000, "B's watch requests");
      controller.abort();
      proxy.heal();
      await expect(acquiring).rejects.toMatchObject({ code: 'ABORTED' });
      await sb.exists(path); // the removals were sent before this request
      // The exists watch is gone (`wchp` lists it while it stands)...
      expect(await serverWatchedPaths(testConnectString(), sb.sessionIdBigInt)).toEqual(new Set());
      // ...and so is the child watch on the write node, which `wchp` does not list: its deletion
      // notifies nobody behind this proxy.
      const tally = proxy.tally();
      await write.release();
      await sb.exists(path); // a notification sent for the deletion would come before this reply
      expect(proxy.tallySince(tally).notifications).toBe(0);
    });
  });

  it('downgrade lets readers queued behind the writer in when the write lock is released, still ahead of the next writer', async () => {
    const [s1, s2, s3] = await Promise.all([connect(), connect(), connect()]);
    const path = freshPath();
    const a = new InterProcessReadWriteLock(s1, path);
    const aWrite = await a.writeLock().acquire();
    const reading = new InterProcessReadWriteLock(s2, path).readLock().acquire();
    await untilChildren(s3, path, (ch) => ch.length === 2);
    const writer = startAcquiring(new InterProcessReadWriteLock(s3, path).writeLock());
    await untilChildren(s3, path, (ch) => ch.length === 3);

    const aRead = await a.readLock().acquire();
    await aWrite.release();
    const reader = await reading; // shares the lock with the downgraded holder
    expect(aRead.held && reader.held).toBe(true);
    expect(writer.holds()).toBe(false);
    await aRead.release();
    await s3.getChildren(path);
    expect(writer.holds()).toBe(false);
    await reader.release();
    await (await writer.granted).release();
  });

  it('a reader of the same process queued behind a writer that downgrades gets in when the write lock goes', async () => {
    const { s2, path, rw, writerHolds, letWriterGo } = await writerInAContextOfItsOwn();
    const writer = (async () => {
      const write = await rw.writeLock().acquire();
      writerHolds.resolve();
      await letWriterGo.promise;
      const read = await rw.readLock().acquire(); // downgrade
      await write.release();
      return read;
    })();
    await writerHolds.promise;
    // Another context of the same process, and a writer of another process behind it.
    const reader = (async () => rw.readLock().acquire({ timeoutMs: 10_000 }))();
    await untilChildren(s2, path, (ch) => ch.length === 2);
    const otherWriter = startAcquiring(new InterProcessReadWriteLock(s2, path).writeLock());
    await untilChildren(s2, path, (ch) => ch.length === 3);
    letWriterGo.resolve();
    const downgraded = await writer;
    const read = await reader; // shares the lock with the downgraded holder (LOCK_TIMEOUT if never woken)
    expect(downgraded.held && read.held).toBe(true);
    expect(otherWriter.holds()).toBe(false);
    await downgraded.release();
    await read.release();
    await (await otherWriter.granted).release();
    expect(await childrenOf(s2, path)).toEqual([]);
  });

  it('a context holding both halves re-enters the write lock; released in either order, nothing is left', async () => {
    const s1 = await connect();
    const path = freshPath();
    const rw = new InterProcessReadWriteLock(s1, path);
    for (const writeFirst of [true, false]) {
      const write = await rw.writeLock().acquire();
      const read = await rw.readLock().acquire();
      const again = await rw.writeLock().acquire(); // not an upgrade: this context holds the write lock
      expect(again.path).toBe(write.path);
      await again.release();
      expect(await rw.readLock().getParticipantNodes()).toEqual([read.path]);
      expect(await rw.writeLock().getParticipantNodes()).toEqual([write.path]);
      if (writeFirst) {
        await write.release();
        await expect(rw.writeLock().acquire()).rejects.toMatchObject({ code: 'UPGRADE_NOT_SUPPORTED' });
        await read.release();
      } else {
        await read.release();
        await write.release();
      }
      expect(await childrenOf(s1, path)).toEqual([]);
    }
  });

  it('the documented downgrade with await using releases both halves', async () => {
    const s1 = await connect();
    const path = freshPath();
    const rw = new InterProcessReadWriteLock(s1, path);
    {
      await using write = await rw.writeLock().acquire();
      await using read = await rw.readLock().acquire();
      await write.release();
      expect(read.held).toBe(true);
      expect(await childrenOf(s1, path)).toEqual([nameOf(read.path)]);
    }
    expect(await childrenOf(s1, path)).toEqual([]);
    expect(rw.readLock().isAcquiredInThisProcess() || rw.writeLock().isAcquiredInThisProcess()).toBe(false);
  });

  it.each([
    ['lost', false],
    ["lost and the recovery's look at the node loses its answer too (no CONNECTION_LOSS)", true],
  ] as const)('a downgrade whose create reply is %s adopts the node it created: one read node, at the writer place', (_, cutRecovery) =>
    writerBehindProxy(async ({ proxy, observer, path, rw, write }) => {
      // The downgrade is one multi (a check that the write node is there, and the create): the server
      // applies it; we never hear back.
      const cut = proxy.cutAfterNextRequest(OP_MULTI);
      const reading = rw.readLock().acquire();
      await cut;
      if (cutRecovery) await proxy.cutAfterNextRequest(OP_EXISTS);
      const read = await reading;
      expect(nameOf(read.path)).toMatch(new RegExp(`-read-${sequenceOf(write.path)}$`));
      expect(await childrenOf(observer, path)).toEqual([nameOf(read.path), nameOf(write.path)].sort());
      expect(write.signal.aborted || read.signal.aborted).toBe(false);
      await write.release();
      await read.release();
      expect(await childrenOf(observer, path)).toEqual([]);
    }),
  );

  it('a downgrade aborted while it recovers from a lost create reply leaves no read node behind', () =>
    writerBehindProxy(async ({ proxy, observer, path, rw, write }) => {
      // The server creates the read node; we never hear back, and cannot reconnect for now.
      const cut = proxy.cutAfterNextRequest(OP_MULTI);
      const controller = new AbortController();
      const reading = rw.readLock().acquire({ signal: controller.signal }).then(
        () => 'granted',
        (err: unknown) => (err as { code?: string }).code,
      );
      proxy.refuseConnections(true);
      await cut;
      await untilChildren(observer, path, (ch) => ch.length === 2); // the read node stands at the writer's place
      controller.abort();
      proxy.refuseConnections(false);
      expect(await reading).toBe('ABORTED');
      // The node it may have made is deleted once the connection is back (waited for within the
      // slack, then in the background): the writer's place is the write node's alone again.
      await untilChildren(observer, path, (ch) => ch.length === 1);
      expect(await childrenOf(observer, path)).toEqual([nameOf(write.path)]);
      await write.release();
      expect(await childrenOf(observer, path)).toEqual([]);
    }));

  it('timeouts and aborts leave no node behind, for readers and writers', async () => {
    const [s1, s2] = await Promise.all([connect(), connect()]);
    const path = freshPath();
    const holder = await new InterProcessReadWriteLock(s1, path).writeLock().acquire();
    const other = new InterProcessReadWriteLock(s2, path);
    const only = [nameOf(holder.path)];

    await expect(other.readLock().acquire({ timeoutMs: 100 })).rejects.toMatchObject({ code: 'LOCK_TIMEOUT' });
    expect(await untilChildren(s2, path, (ch) => ch.length === 1)).toEqual(only);
    await expect(other.writeLock().acquire({ timeoutMs: 100 })).rejects.toMatchObject({ code: 'LOCK_TIMEOUT' });
    expect(await untilChildren(s2, path, (ch) => ch.length === 1)).toEqual(only);
    expect(await other.writeLock().tryAcquire()).toBeNull();
    expect(await other.readLock().tryAcquire()).toBeNull();
    expect(await untilChildren(s2, path, (ch) => ch.length === 1)).toEqual(only);

    for (const lock of [other.readLock(), other.writeLock()]) {
      const controller = new AbortController();
      const acquiring = lock.acquire({ signal: controller.signal });
      await untilChildren(s2, path, (ch) => ch.length === 2);
      controller.abort(new Error('caller gave up'));
      await expect(acquiring).rejects.toMatchObject({ code: 'ABORTED' });
      expect(await untilChildren(s2, path, (ch) => ch.length === 1)).toEqual(only);
    }
    await holder.release();
  });

  it("session loss aborts the holder's handle.signal; a waiter enqueues again on its next session and is granted there", async () => {
    const [s1, s2, s3] = await Promise.all([connect(), connect(), connect()]);
    const path = freshPath();
    const read = await new InterProcessReadWriteLock(s2, path).readLock().acquire();
    const writing = new InterProcessReadWriteLock(s1, path).writeLock().acquire();
    await untilChildren(s3, path, (ch) => ch.length === 2);
    const waiting = new InterProcessReadWriteLock(s3, path).readLock().acquire();
    waiting.catch(() => undefined);
    await untilChildren(s1, path, (ch) => ch.length === 3);

    const signalled = new Promise<void>((resolve) => read.signal.addEventListener('abort', () => resolve(), { once: true }));
    await expireSession(testConnectString(), sessionInternals(s2).credentials);
    await signalled;
    expect(read.signal.aborted).toBe(true);
    await read.release(); // does not throw once ownership is gone
    const write: LockHandle = await writing;

    const oldWaiter = (await childrenOf(s1, path)).find((name) => name !== nameOf(write.path));
    await expireSession(testConnectString(), sessionInternals(s3).credentials);
    // Its node went with the session; a new one, of the next session, queues behind the writer.
    await untilChildren(s1, path, (ch) => ch.length === 2 && oldWaiter !== undefined && !ch.includes(oldWaiter));
    await write.release();
    const read2 = await waiting;
    expect(read2.signal.aborted).toBe(false);
    expect((await s1.exists(read2.path))?.ephemeralOwner).toBe(s3.sessionIdBigInt);
    await read2.release();
    expect(await childrenOf(s1, path)).toEqual([]);
  });

  it("writes Curator's __READ__ / __WRIT__ names with naming: 'curator'", async () => {
    const s1 = await connect();
    const path = freshPath();
    const rw = new InterProcessReadWriteLock(s1, path, { naming: 'curator' });
    const write = await rw.writeLock().acquire();
    const read = await rw.readLock().acquire();
    expect(nameOf(write.path)).toMatch(/^_c_[0-9a-f-]{36}-__WRIT__\d{10}$/);
    expect(nameOf(read.path)).toBe(`${nameOf(read.path).slice(0, 40)}__READ__${sequenceOf(write.path)}`);
    await read.release();
    await write.release();
  });
});
