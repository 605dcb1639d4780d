/**
 * The read/write lock's hand-off shortcut under attack (docs/architecture.md, "The node two
 * ahead"). A waiter watches the node its rule names (a reader: the nearest writer ahead; a writer:
 * its predecessor) and the node before that one, both for their deletion only. When the node
 * before goes it lists, while the node it waits for still stands; if that listing shows the node
 * it waits for as its last obstacle, that node's deletion grants with no round trip. A writer also
 * watches for the creation of the downgrade read node at its predecessor's place.
 *
 * Each test attacks one assumption of that shortcut, with the waiter under attack behind a
 * FaultProxy that counts what its session sends and is sent. Every order is built from round
 * trips and events (see `caughtUp`), never from timers.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ZkSession, type LockHandle } from '@zk-recipes/core';
import { sessionInternals } from '@zk-recipes/core/internal';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { FaultProxy, pollUntil, testConnectString, uniqueRoot } from '@zk-recipes/testing';
import {
  brief,
  caughtUp,
  Operator,
  settledInWait,
  signalState,
  track,
  untilQueue,
  within,
  type Tracked,
} from '../../core/test/support/adversary.js';
import { proxyToTestServer } from './support/zk.js';

type Kind = 'read' | 'write';
const who = (kind: Kind) => (kind === 'read' ? 'reader' : 'writer');

const OP_EXISTS = 3;
const OP_GET_CHILDREN2 = 12;
const OP_REMOVE_WATCHES = 18;

const root = uniqueRoot('rwlock-node-ahead');
const BOUND_MS = 15_000;
let sessions: ZkSession[] = [];
let proxies: FaultProxy[] = [];
let counter = 0;
const freshPath = (label: string) => `${root}/${++counter}-${label}`;

async function connect(): Promise<ZkSession> {
  const session = await ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs: 6000 });
  sessions.push(session);
  return session;
}

/** A session whose frames pass a {@link FaultProxy} (both closed after the test). */
async function connectThroughProxy(): Promise<{ session: ZkSession; proxy: FaultProxy }> {
  const proxy = await proxyToTestServer();
  proxies.push(proxy);
  const session = await ZkSession.connect({ connectString: proxy.connectString, sessionTimeoutMs: 6000 });
  sessions.push(session);
  return { session, proxy };
}

afterEach(async () => {
  const open = sessions;
  sessions = [];
  await Promise.all(open.map((s) => s.close()));
  const listening = proxies;
  proxies = [];
  await Promise.all(listening.map((p) => p.close()));
});

const lockOf = (session: ZkSession, path: string, kind: Kind) => {
  const rw = new InterProcessReadWriteLock(session, path);
  return kind === 'read' ? rw.readLock() : rw.writeLock();
};

/** Starts an acquisition and returns once it waits on the server (its node is the `count`-th). */
async function enqueueWaiter(
  session: ZkSession,
  kind: Kind,
  observer: ZkSession,
  path: string,
  count: number,
  options?: { signal?: AbortSignal; timeoutMs?: number },
): Promise<{ acquisition: Tracked<LockHandle>; node: string }> {
  const acquisition = track(lockOf(session, path, kind).acquire(options));
  const queue = await untilQueue(observer, path, count);
  await settledInWait(session);
  return { acquisition, node: queue[count - 1]! };
}

/** Resolves once the server has answered `count` requests of `opCode` on `nodePath` from `proxy`'s session (a watch request answered: the watch is set). */
const untilAnswered = (proxy: FaultProxy, opCode: number, nodePath: string, count = 1) =>
  pollUntil(() => proxy.answersTo(opCode, nodePath) >= count, BOUND_MS, `the answer to request ${opCode} on ${nodePath}`);

/** The name a downgrade gives the read node at this write node's place. */
const downgradePathOf = (writePath: string) => writePath.replace(/-write-(\d{10})$/, '-read-$1');

/** Releases a granted acquisition's lock, and says it was granted. */
async function releaseGranted(outcome: Awaited<Tracked<LockHandle>['settled']>): Promise<void> {
  expect(brief(outcome)).toEqual({ state: 'resolved' });
  if (outcome.state === 'resolved') await outcome.value.release();
}

describe('InterProcessReadWriteLock: the node ahead of the one a waiter waits for', () => {
  for (const waiter of ['read', 'write'] as const) {
    it(`a foreign write to the nodes a ${who(waiter)} watches wakes no one: random bytes on the writer W1 it waits for, __REVOKE__ on the holder H ahead of it: it sends nothing, is sent nothing, and takes the lock only in its turn`, async () => {
      const path = freshPath(`foreign-write-${waiter}`);
      const [sH, sW1, sOp] = await Promise.all([connect(), connect(), connect()]);
      const { session: sW2, proxy } = await connectThroughProxy();
      const operator = new Operator(sOp);
      const held = await lockOf(sH, path, 'write').acquire();
      const w1 = await enqueueWaiter(sW1, 'write', sOp, path, 2);
      const w2 = await enqueueWaiter(sW2, waiter, sOp, path, 3);
      await untilAnswered(proxy, OP_GET_CHILDREN2, w1.node);
      await untilAnswered(proxy, OP_GET_CHILDREN2, held.path);

      const mark = proxy.frames.length;
      const tally = proxy.tally();
      await operator.write(w1.node, randomBytes(16));
      await operator.write(held.path, Buffer.from('__REVOKE__'));
      await caughtUp(sW2); // every event the writes caused has come, and been acted on
      // Only caughtUp's own request: no read, no listing, no watch set again; and no notification.
      expect(proxy.requestTypesSince(mark)).toEqual([OP_EXISTS]);
      expect(proxy.tallySince(tally).notifications).toBe(0);

      await held.release();
      const granted1 = await within(w1.acquisition.settled, BOUND_MS, 'W1 to acquire');
      await settledInWait(sW2);
      expect(w2.acquisition.outcome.state).toBe('pending');
      await releaseGranted(granted1);
      await releaseGranted(await within(w2.acquisition.settled, BOUND_MS, 'W2 to acquire after W1 released'));
    });
  }

  it('a foreign write to the reading holders a writer waits for wakes no one: it sends nothing, is sent nothing, and takes the lock when both have released', async () => {
    const path = freshPath('foreign-write-any-of');
    const [sR1, sR2, sOp] = await Promise.all([connect(), connect(), connect()]);
    const { session: sW, proxy } = await connectThroughProxy();
    const operator = new Operator(sOp);
    const reads = [await lockOf(sR1, path, 'read').acquire(), await lockOf(sR2, path, 'read').acquire()];
    const w = await enqueueWaiter(sW, 'write', sOp, path, 3);
    for (const read of reads) await untilAnswered(proxy, OP_GET_CHILDREN2, read.path);

    const mark = proxy.frames.length;
    const tally = proxy.tally();
    await operator.write(reads[0]!.path, Buffer.from('__REVOKE__'));
    await operator.write(reads[1]!.path, randomBytes(16));
    await caughtUp(sW);
    expect(proxy.requestTypesSince(mark)).toEqual([OP_EXISTS]);
    expect(proxy.tallySince(tally).notifications).toBe(0);

    await reads[1]!.release();
    await settledInWait(sW);
    expect(w.acquisition.outcome.state).toBe('pending');
    await reads[0]!.release();
    await releaseGranted(await within(w.acquisition.settled, BOUND_MS, 'W to acquire'));
  });

  for (const waiter of ['read', 'write'] as const) {
    it(`the node ahead gives up, then the node waited for gives up, while the holder holds: the ${who(waiter)} behind them lists each time and takes the lock only when the holder releases`, async () => {
      const path = freshPath(`ahead-gives-up-${waiter}`);
      const [sH, sA, sP, sOp] = await Promise.all([connect(), connect(), connect(), connect()]);
      const { session: sW, proxy } = await connectThroughProxy();
      const held = await lockOf(sH, path, 'write').acquire();
      // A gives up at its deadline, long after W has set its watches (a few round trips); were it
      // earlier, W would find A gone when watching it, and list just the same.
      const a = await enqueueWaiter(sA, 'write', sOp, path, 2, { timeoutMs: 2000 });
      const giveUpP = new AbortController();
      const p = await enqueueWaiter(sP, 'write', sOp, path, 3, { signal: giveUpP.signal });
      const listings = proxy.requestsTo(OP_GET_CHILDREN2, path);
      const w = await enqueueWaiter(sW, waiter, sOp, path, 4);
      // W waits for P and watches A, the node ahead of P.
      await untilAnswered(proxy, OP_GET_CHILDREN2, p.node);
      await untilAnswered(proxy, OP_GET_CHILDREN2, a.node);

      expect(brief(await within(a.acquisition.settled, BOUND_MS, 'A to time out'))).toMatchObject({ state: 'rejected', code: 'LOCK_TIMEOUT' });
      await settledInWait(sW); // W read A's deletion, listed, and decided on the listing
      expect(w.acquisition.outcome.state).toBe('pending');
      // The listing behind W's create, and the one made when A went: it showed the holder still
      // ahead of P, so P is not W's last obstacle.
      expect(proxy.requestsTo(OP_GET_CHILDREN2, path) - listings).toBe(2);

      giveUpP.abort(); // the node W waits for goes without ever holding
      expect(brief(await within(p.acquisition.settled, BOUND_MS, 'P to give up'))).toMatchObject({ state: 'rejected', code: 'ABORTED' });
      await settledInWait(sW);
      expect(w.acquisition.outcome.state).toBe('pending');
      expect(held.signal.aborted).toBe(false);
      expect(proxy.requestsTo(OP_GET_CHILDREN2, path) - listings).toBe(3);

      await held.release();
      await releaseGranted(await within(w.acquisition.settled, BOUND_MS, 'W to acquire after H released'));
    });
  }

  for (const waiter of ['read', 'write'] as const) {
    it(`the ${who(waiter)}'s listing made when the holder ahead went is held at its proxy until the writer it waits for has released: it takes the lock on that listing when it comes, one listing in all`, async () => {
      const path = freshPath(`listing-late-${waiter}`);
      const [sH, sW1, sOp] = await Promise.all([connect(), connect(), connect()]);
      const { session: sW2, proxy } = await connectThroughProxy();
      const held = await lockOf(sH, path, 'write').acquire();
      const w1 = await enqueueWaiter(sW1, 'write', sOp, path, 2);
      const w2 = await enqueueWaiter(sW2, waiter, sOp, path, 3);
      await untilAnswered(proxy, OP_GET_CHILDREN2, w1.node);
      await untilAnswered(proxy, OP_GET_CHILDREN2, held.path);

      const listings = proxy.requestsTo(OP_GET_CHILDREN2, path);
      proxy.holdRequests();
      await held.release();
      await pollUntil(() => proxy.requestsTo(OP_GET_CHILDREN2, path) > listings, BOUND_MS, "W2's listing (held at the proxy)");
      const granted1 = await within(w1.acquisition.settled, BOUND_MS, 'W1 to acquire');
      // W1 releases while W2's listing is held: W2 reads W1's deletion before the listing's answer.
      const watching = sessionInternals(sW2).diagnostics.watchers;
      await releaseGranted(granted1);
      await pollUntil(() => sessionInternals(sW2).diagnostics.watchers < watching, BOUND_MS, "W1's deletion read by W2");
      await new Promise((resolve) => setImmediate(resolve)); // ...and told (the session tells events a turn later)
      expect(w2.acquisition.outcome.state).toBe('pending');
      proxy.heal(); // the listing, served after W1's deletion, shows W2 first

      await releaseGranted(await within(w2.acquisition.settled, BOUND_MS, 'W2 to acquire'));
      expect(proxy.requestsTo(OP_GET_CHILDREN2, path) - listings).toBe(1);
    });
  }

  for (const race of ['decided on before the downgrade', 'read together with the downgrade and the write release'] as const) {
    it(`CURATOR-621 on the node-ahead listing: the writer two behind a writer A learns A is its last obstacle, from a listing ${race}; A downgrades and releases the write lock: the writer gets the lock only when A releases the read lock`, async () => {
      const path = freshPath(`downgrade-race-${race.split(' ')[0]}`);
      const [s0, sA, sOp] = await Promise.all([connect(), connect(), connect()]);
      const { session: sB, proxy } = await connectThroughProxy();
      const blocker = await lockOf(s0, path, 'write').acquire();
      const rwA = new InterProcessReadWriteLock(sA, path);
      const aWriting = rwA.writeLock().acquire();
      aWriting.catch(() => undefined); // awaited below; a failed assertion before that closes its session
      const aNode = (await untilQueue(sOp, path, 2))[1]!;
      const b = await enqueueWaiter(sB, 'write', sOp, path, 3);
      // B waits for A (deletion only), watches the blocker ahead of A, and A's read node's name.
      await untilAnswered(proxy, OP_GET_CHILDREN2, aNode);
      await untilAnswered(proxy, OP_GET_CHILDREN2, blocker.path);
      await untilAnswered(proxy, OP_EXISTS, downgradePathOf(aNode));

      const listings = proxy.requestsTo(OP_GET_CHILDREN2, path);
      const answered = proxy.answersTo(OP_GET_CHILDREN2, path);
      if (race === 'decided on before the downgrade') {
        await blocker.release();
        await pollUntil(() => proxy.answersTo(OP_GET_CHILDREN2, path) > answered, BOUND_MS, "B's listing once the blocker went");
        await caughtUp(sB); // B has decided on it: A is its last obstacle
      } else {
        // B's listing reaches the server, is served (showing A as B's last obstacle), and its
        // answer is held at the proxy; then A downgrades and releases its write lock, and B reads
        // the answer, the read node's creation and the write node's deletion all at once.
        proxy.holdRequests();
        await blocker.release();
        await pollUntil(() => proxy.requestsTo(OP_GET_CHILDREN2, path) > listings, BOUND_MS, "B's listing (held at the proxy)");
        proxy.heal();
        proxy.holdReplies(); // set before any answer can come back: the listing's is held
        await pollUntil(() => proxy.answersTo(OP_GET_CHILDREN2, path) > answered, BOUND_MS, "the server's answer to B's listing");
      }
      const aWrite = await aWriting;
      const aRead = await rwA.readLock().acquire(); // the downgrade: a read node at A's place
      await aWrite.release();
      proxy.heal();
      await settledInWait(sB); // B's events came before these replies, and it acted on them
      expect(b.acquisition.outcome.state).toBe('pending');
      expect(aRead.signal.aborted).toBe(false);

      await aRead.release();
      await releaseGranted(await within(b.acquisition.settled, BOUND_MS, 'B to acquire after the read lock was released'));
      // No read of any node's data: nothing was announced, nothing needed reading.
      expect(proxy.tally().byOp['getData']).toBeUndefined();
    });
  }

  for (const waiter of ['read', 'write'] as const) {
    it(`an operator deletes the holder H ahead of the writer W1 that a ${who(waiter)} W2 waits for: W2 lists, W1 takes the lock, and W2 gets it only when W1 releases; H is told`, async () => {
      const path = freshPath(`operator-deletes-ahead-${waiter}`);
      const [sH, sW1, sOp] = await Promise.all([connect(), connect(), connect()]);
      const { session: sW2, proxy } = await connectThroughProxy();
      const operator = new Operator(sOp);
      const held = await lockOf(sH, path, 'write').acquire();
      const heldSignal = held.signal; // H follows its lock from the grant, as its work would
      const w1 = await enqueueWaiter(sW1, 'write', sOp, path, 2);
      const w2 = await enqueueWaiter(sW2, waiter, sOp, path, 3);
      await untilAnswered(proxy, OP_GET_CHILDREN2, w1.node);
      await untilAnswered(proxy, OP_GET_CHILDREN2, held.path);

      const listings = proxy.requestsTo(OP_GET_CHILDREN2, path);
      await operator.deleteNode(held.path);
      const granted1 = await within(w1.acquisition.settled, BOUND_MS, 'W1 to acquire');
      await settledInWait(sW2); // W2 read H's deletion, listed, and decided on the listing
      expect(w2.acquisition.outcome.state).toBe('pending');
      expect(proxy.requestsTo(OP_GET_CHILDREN2, path) - listings).toBe(1);
      await caughtUp(sH);
      expect(signalState(heldSignal)).toEqual({ aborted: true, code: 'NODE_DELETED' });

      const mark = proxy.frames.length;
      await releaseGranted(granted1);
      const granted2 = await within(w2.acquisition.settled, BOUND_MS, 'W2 to acquire after W1 released');
      // The listing made when H's node went showed W1 as W2's last obstacle: W1's deletion granted
      // W2 with no request more (but a writer's removal of its watch for W1's read node, never
      // created; the `exists` is this test's, after it).
      await sW2.exists(path);
      expect(proxy.requestTypesSince(mark)).toEqual(waiter === 'write' ? [OP_REMOVE_WATCHES, OP_EXISTS] : [OP_EXISTS]);
      expect(proxy.requestsTo(OP_GET_CHILDREN2, path) - listings).toBe(1);
      await releaseGranted(granted2);
    });

    it(`an operator deletes the waiting writer W1 that a ${who(waiter)} W2 waits for, while H holds: W1 is refused, W2 lists and gets the lock only when H releases`, async () => {
      const path = freshPath(`operator-deletes-waited-for-${waiter}`);
      const [sH, sW1, sOp] = await Promise.all([connect(), connect(), connect()]);
      const { session: sW2, proxy } = await connectThroughProxy();
      const operator = new Operator(sOp);
      const held = await lockOf(sH, path, 'write').acquire();
      const w1 = await enqueueWaiter(sW1, 'write', sOp, path, 2);
      const w2 = await enqueueWaiter(sW2, waiter, sOp, path, 3);
      await untilAnswered(proxy, OP_GET_CHILDREN2, w1.node);

      await operator.deleteNode(w1.node);
      expect(brief(await within(w1.acquisition.settled, BOUND_MS, 'W1 to settle'))).toMatchObject({ state: 'rejected', code: 'NODE_DELETED' });
      await settledInWait(sW2);
      expect(w2.acquisition.outcome.state).toBe('pending');
      expect(held.signal.aborted).toBe(false);

      await held.release();
      await releaseGranted(await within(w2.acquisition.settled, BOUND_MS, 'W2 to acquire after H released'));
    });
  }

  it("10 readers and a writer of one process, whose node ahead is the same writer W1: W1's going costs their session one listing, and nothing else is listed until the writer takes the lock last", async () => {
    const path = freshPath('one-listing');
    const [sH, sW1, sW2, sOp] = await Promise.all([connect(), connect(), connect(), connect()]);
    const { session: sR, proxy } = await connectThroughProxy();
    const held = await lockOf(sH, path, 'write').acquire();
    const w1 = await enqueueWaiter(sW1, 'write', sOp, path, 2);
    const w2 = await enqueueWaiter(sW2, 'write', sOp, path, 3);
    // Ten readers, each in an async context of its own, then a writer: all wait for W2 and watch
    // W1, the node ahead of it.
    const reading = Array.from({ length: 10 }, () => track((async () => lockOf(sR, path, 'read').acquire())()));
    await untilQueue(sOp, path, 13);
    const writing = track((async () => lockOf(sR, path, 'write').acquire())());
    await untilQueue(sOp, path, 14);
    await untilAnswered(proxy, OP_GET_CHILDREN2, w1.node, 11);
    await untilAnswered(proxy, OP_GET_CHILDREN2, w2.node, 11);
    const afterEnqueueing = proxy.requestsTo(OP_GET_CHILDREN2, path);

    await held.release(); // not the node ahead of any of them: nothing to list
    const granted1 = await within(w1.acquisition.settled, BOUND_MS, 'W1 to acquire');
    await settledInWait(sR);
    expect(proxy.requestsTo(OP_GET_CHILDREN2, path)).toBe(afterEnqueueing);

    await releaseGranted(granted1); // the node ahead of all eleven goes: one listing for them all
    const granted2 = await within(w2.acquisition.settled, BOUND_MS, 'W2 to acquire');
    await pollUntil(() => proxy.answersTo(OP_GET_CHILDREN2, path) > afterEnqueueing, BOUND_MS, 'the listing once W1 went');
    await settledInWait(sR);
    expect(proxy.requestsTo(OP_GET_CHILDREN2, path) - afterEnqueueing).toBe(1);
    expect([...reading.map((r) => r.outcome.state), writing.outcome.state]).toEqual(Array(11).fill('pending'));

    const mark = proxy.frames.length;
    await releaseGranted(granted2); // the readers' last obstacle; the writer watches them now
    const readers = await within(Promise.all(reading.map((r) => r.settled)), BOUND_MS, 'the readers to acquire');
    await settledInWait(sR);
    expect(writing.outcome.state).toBe('pending');
    // W2's deletion granted the ten readers and moved the writer on to them with no request (the
    // `exists` are settledInWait's).
    expect(proxy.requestTypesSince(mark).filter((type) => type !== OP_EXISTS)).toEqual([]);
    for (const outcome of readers) await releaseGranted(outcome);
    await releaseGranted(await within(writing.settled, BOUND_MS, 'the writer to acquire after the readers'));
    expect(proxy.requestsTo(OP_GET_CHILDREN2, path) - afterEnqueueing).toBe(1);
    expect(proxy.tally().byOp['getData']).toBeUndefined();
  });
});
