/**
 * Safety of InterProcessMutex under an adversary: an operator deletes lock nodes, a
 * third client writes a waiter's node. Never two holders; a waiter whose node is gone is refused
 * with NODE_DELETED; a holder whose node is gone is told (signal + `lost`).
 *
 * Every order below is built from round trips and events (see `caughtUp`): ZooKeeper answers one
 * session in order and sends its watch events before the replies to its later requests.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ZkSession, type LockHandle } from '@zk-recipes/core';
import { sessionInternals } from '@zk-recipes/core/internal';
import { InterProcessMutex, InterProcessSemaphoreMutex } from '@zk-recipes/mutex';
import { FaultProxy, pollUntil, testConnectString, uniqueRoot } from '@zk-recipes/testing';
import {
  brief,
  caughtUp,
  codeOf,
  Operator,
  settledInWait,
  signalState,
  track,
  untilQueue,
  within,
  type Tracked,
} from '../../core/test/support/adversary.js';
import { stalledWaiterScenario } from '../../core/test/support/stalledWaiter.js';

const STALLED_WAITER = fileURLToPath(new URL('./workers/stalledWaiter.ts', import.meta.url));

const root = uniqueRoot('mutex-safety');
const BOUND_MS = 15_000;
let sessions: ZkSession[] = [];
let proxies: FaultProxy[] = [];

async function connect(): Promise<ZkSession> {
  const session = await ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs: 6000 });
  sessions.push(session);
  return session;
}

afterEach(async () => {
  const open = sessions;
  sessions = [];
  await Promise.all(open.map((s) => s.close()));
  const listening = proxies;
  proxies = [];
  await Promise.all(listening.map((p) => p.close()));
});

/** A session whose frames pass a {@link FaultProxy} (closed after the test). */
async function connectThroughProxy(): Promise<{ session: ZkSession; proxy: FaultProxy }> {
  const [host, port] = testConnectString().split(',')[0]!.split('/')[0]!.split(':') as [string, string];
  const proxy = await FaultProxy.start({ targetHost: host, targetPort: Number(port) });
  proxies.push(proxy);
  const session = await ZkSession.connect({ connectString: proxy.connectString, sessionTimeoutMs: 6000 });
  sessions.push(session);
  return { session, proxy };
}

const OP_EXISTS = 3;
const OP_GET_CHILDREN2 = 12;

function mutexOn(session: ZkSession, path: string): { mutex: InterProcessMutex; lost: Error[] } {
  const mutex = new InterProcessMutex(session, path);
  const lost: Error[] = [];
  mutex.on('lost', (reason) => lost.push(reason));
  return { mutex, lost };
}

/** Starts an acquisition and returns once it waits on the server (its node is the `count`-th). */
async function enqueueWaiter(
  session: ZkSession,
  mutex: InterProcessMutex,
  observer: ZkSession,
  path: string,
  count: number,
  signal?: AbortSignal,
): Promise<{ acquisition: Tracked<LockHandle>; node: string }> {
  const acquisition = track(mutex.acquire(signal === undefined ? undefined : { signal }));
  const queue = await untilQueue(observer, path, count);
  await settledInWait(session);
  return { acquisition, node: queue[count - 1]! };
}

/** How a waiter whose node someone else deleted must end. */
const rejectedNodeDeleted = (node: string) => ({ state: 'rejected', code: 'NODE_DELETED', path: node, typed: true });

/**
 * The outcome when the operator deleted both the waiter B's node and the holder H's: B rejects with
 * NODE_DELETED, a later contender C acquires (it is the only holder), and H has been told.
 */
async function expectBRefusedHToldCOnly(
  b: { acquisition: Tracked<LockHandle>; node: string },
  held: LockHandle,
  sH: ZkSession,
  sC: ZkSession,
  path: string,
): Promise<void> {
  expect(brief(await within(b.acquisition.settled, BOUND_MS, 'B to settle'))).toEqual(rejectedNodeDeleted(b.node));
  const c = await within(new InterProcessMutex(sC, path).acquire(), BOUND_MS, 'C to acquire');
  await caughtUp(sH);
  expect(signalState(held.signal)).toEqual({ aborted: true, code: 'NODE_DELETED' });
  await c.release();
}

describe('InterProcessMutex safety: a waiter whose own node was deleted never gets the lock', () => {
  for (const sameSession of [false, true]) {
    const where = sameSession ? 'same session' : 'another session';
    it(`${where}: the operator deletes the waiter B, then the holder H: B rejects with NODE_DELETED, H is told, a later C is the only holder`, async () => {
      const path = `${root}/${sameSession ? 'same-session-delete' : 'other-session'}`;
      const [sH, sOther, sC, sOp] = await Promise.all([connect(), connect(), connect(), connect()]);
      const sB = sameSession ? sH : sOther;
      const operator = new Operator(sOp);
      const h = mutexOn(sH, path);
      const held = await h.mutex.acquire();
      const b = await enqueueWaiter(sB, new InterProcessMutex(sB, path), sOp, path, 2);

      await operator.deleteNode(b.node);
      await operator.deleteNode(held.path);

      await expectBRefusedHToldCOnly(b, held, sH, sC, path);
    });
  }

  it("B's connection is down while the operator deletes B, then the holder H: after the reconnection (deletions replayed in no particular order) B rejects with NODE_DELETED, a later C is the only holder", async () => {
    const path = `${root}/deleted-while-down`;
    const [sH, sC, sOp] = await Promise.all([connect(), connect(), connect()]);
    const { session: sB, proxy } = await connectThroughProxy();
    const operator = new Operator(sOp);
    const h = mutexOn(sH, path);
    const held = await h.mutex.acquire();
    const b = await enqueueWaiter(sB, new InterProcessMutex(sB, path), sOp, path, 2);
    const suspended = new Promise<void>((resolve) => sB.once('suspended', () => resolve()));
    proxy.refuseConnections();
    proxy.dropConnections();
    await suspended;
    await operator.deleteNode(b.node);
    await operator.deleteNode(held.path);
    const reconnected = new Promise<void>((resolve) => sB.once('reconnected', () => resolve()));
    proxy.refuseConnections(false);
    await within(reconnected, BOUND_MS, 'B to reconnect');
    await expectBRefusedHToldCOnly(b, held, sH, sC, path);
  });

  it('the holder H and the waiter B deleted in one transaction (both events read together): B rejects with NODE_DELETED, never holds', async () => {
    const path = `${root}/one-transaction`;
    const [host, port] = testConnectString().split(',')[0]!.split('/')[0]!.split(':') as [string, string];
    const proxy = await FaultProxy.start({ targetHost: host, targetPort: Number(port) });
    proxies.push(proxy);
    const sB = await ZkSession.connect({ connectString: proxy.connectString, sessionTimeoutMs: 6000 });
    sessions.push(sB);
    const [sH, sC, sOp] = await Promise.all([connect(), connect(), connect()]);
    const h = mutexOn(sH, path);
    const held = await h.mutex.acquire();
    const b = await enqueueWaiter(sB, new InterProcessMutex(sB, path), sOp, path, 2);
    // B is told of the holder's deletion and of its own in one read: B acts on the first before it
    // has told anyone of the second, so the grant must see that its node went.
    proxy.holdReplies();
    await sOp.transaction([
      { type: 'delete', path: held.path, version: -1 },
      { type: 'delete', path: b.node, version: -1 },
    ]);
    proxy.heal();
    await expectBRefusedHToldCOnly(b, held, sH, sC, path);
  });

  it('same session (local hand-over): B is deleted, then H releases: B rejects with NODE_DELETED, a later C is the only holder', async () => {
    const path = `${root}/same-session-release`;
    const [sA, sC, sOp] = await Promise.all([connect(), connect(), connect()]);
    const operator = new Operator(sOp);
    const held = await new InterProcessMutex(sA, path).acquire();
    const b = await enqueueWaiter(sA, new InterProcessMutex(sA, path), sOp, path, 2);

    await operator.deleteNode(b.node);
    // The session has been told of the deletion before the holder hands over.
    await caughtUp(sA);
    await held.release();

    expect(brief(await within(b.acquisition.settled, BOUND_MS, 'B to settle'))).toEqual(rejectedNodeDeleted(b.node));
    const c = await within(new InterProcessMutex(sC, path).acquire(), BOUND_MS, 'C to acquire');
    await c.release();
  });

  it('deleteall of the lock directory, youngest child first (holder H and waiter W1 in one session, W2 in another): only the late contender C holds', async () => {
    const path = `${root}/deleteall`;
    const [sA, sW2, sC, sOp] = await Promise.all([connect(), connect(), connect(), connect()]);
    const operator = new Operator(sOp);
    const h = mutexOn(sA, path);
    const held = await h.mutex.acquire();
    const w1 = await enqueueWaiter(sA, new InterProcessMutex(sA, path), sOp, path, 2);
    const w2 = await enqueueWaiter(sW2, new InterProcessMutex(sW2, path), sOp, path, 3);

    expect(await operator.deleteAllYoungestFirst(path)).toEqual([w2.node, w1.node, held.path, path]);

    const [w1Outcome, w2Outcome] = await within(Promise.all([w1.acquisition.settled, w2.acquisition.settled]), BOUND_MS, 'W1 and W2 to settle');
    const c = await within(new InterProcessMutex(sC, path).acquire(), BOUND_MS, 'C to acquire');
    await caughtUp(sA);
    expect({ w1: brief(w1Outcome), w2: brief(w2Outcome), holder: signalState(held.signal), lost: h.lost.map(codeOf) }).toEqual({
      w1: rejectedNodeDeleted(w1.node),
      w2: rejectedNodeDeleted(w2.node),
      holder: { aborted: true, code: 'NODE_DELETED' },
      lost: ['NODE_DELETED'],
    });
    await c.release();
  });
});

describe('InterProcessMutex safety: a foreign write on a waiting node never passes the lock on', () => {
  for (const [label, data] of [
    ['random bytes', randomBytes(16)],
    ["Curator's __REVOKE__", Buffer.from('__REVOKE__')],
  ] as const) {
    it(`${label} written to W1's node, then W1 aborts: W2 does not hold while H holds, and gets the lock when H releases`, async () => {
      const path = `${root}/foreign-write-${label.replace(/[^a-z]/gi, '')}`;
      const [sH, sW1, sW2, sOp] = await Promise.all([connect(), connect(), connect(), connect()]);
      const operator = new Operator(sOp);
      const held = await new InterProcessMutex(sH, path).acquire();
      const giveUp = new AbortController();
      const w1 = await enqueueWaiter(sW1, new InterProcessMutex(sW1, path), sOp, path, 2, giveUp.signal);
      const w2 = await enqueueWaiter(sW2, new InterProcessMutex(sW2, path), sOp, path, 3);

      await operator.write(w1.node, data);
      await caughtUp(sW2); // W2 has seen the write
      giveUp.abort();
      expect(brief(await within(w1.acquisition.settled, BOUND_MS, 'W1 to give up'))).toMatchObject({ state: 'rejected', code: 'ABORTED' });
      await caughtUp(sW2); // W2 has seen W1's node go, and acted on it

      expect(w2.acquisition.outcome.state).toBe('pending');
      expect(held.signal.aborted).toBe(false);
      await held.release();
      const granted = await within(w2.acquisition.settled, BOUND_MS, 'W2 to acquire after H released');
      expect(brief(granted)).toEqual({ state: 'resolved' });
      if (granted.state === 'resolved') await granted.value.release();
    });
  }
});

describe('InterProcessMutex safety: the node two ahead (docs/architecture.md, "The node two ahead")', () => {
  // A waiter watches its predecessor and the node before it, for their deletion only. When the
  // node two ahead goes it lists; if that listing shows its predecessor first, the predecessor's
  // deletion grants without a round trip. Each test attacks one assumption of that shortcut.

  it('a foreign write to the predecessor and to the node two ahead wakes no one: the waiter sends nothing, and takes the lock only in its turn', async () => {
    const path = `${root}/two-ahead-foreign-write`;
    const [sH, sW1, sOp] = await Promise.all([connect(), connect(), connect()]);
    const { session: sW2, proxy } = await connectThroughProxy();
    const operator = new Operator(sOp);
    const held = await new InterProcessMutex(sH, path).acquire();
    const w1 = await enqueueWaiter(sW1, new InterProcessMutex(sW1, path), sOp, path, 2);
    const w2 = await enqueueWaiter(sW2, new InterProcessMutex(sW2, path), sOp, path, 3);

    const mark = proxy.frames.length;
    await operator.write(w1.node, Buffer.from('__REVOKE__'));
    await operator.write(held.path, randomBytes(16));
    await caughtUp(sOp);
    await settledInWait(sW2);
    // Only the `exists` of settledInWait: no read, no listing, no watch set again.
    expect(proxy.requestTypesSince(mark).filter((type) => type !== OP_EXISTS)).toEqual([]);

    await held.release();
    const granted1 = await within(w1.acquisition.settled, BOUND_MS, 'W1 to acquire');
    await settledInWait(sW2);
    expect(w2.acquisition.outcome.state).toBe('pending');
    if (granted1.state === 'resolved') await granted1.value.release();
    const granted2 = await within(w2.acquisition.settled, BOUND_MS, 'W2 to acquire after W1 released');
    expect(brief(granted2)).toEqual({ state: 'resolved' });
    if (granted2.state === 'resolved') await granted2.value.release();
  });

  it('the node two ahead gives up while the predecessor waits: the waiter lists, sees a holder still ahead, and takes the lock only after both', async () => {
    const path = `${root}/two-ahead-gives-up`;
    const [sH, sA, sP, sOp] = await Promise.all([connect(), connect(), connect(), connect()]);
    const { session: sW, proxy } = await connectThroughProxy();
    const held = await new InterProcessMutex(sH, path).acquire();
    const giveUp = new AbortController();
    const a = await enqueueWaiter(sA, new InterProcessMutex(sA, path), sOp, path, 2, giveUp.signal);
    const p = await enqueueWaiter(sP, new InterProcessMutex(sP, path), sOp, path, 3);
    const w = await enqueueWaiter(sW, new InterProcessMutex(sW, path), sOp, path, 4);

    const listings = proxy.requestsTo(OP_GET_CHILDREN2, path);
    giveUp.abort(); // A, the node two ahead of W, leaves without ever holding
    expect(brief(await within(a.acquisition.settled, BOUND_MS, 'A to give up'))).toMatchObject({ state: 'rejected', code: 'ABORTED' });
    await pollUntil(() => proxy.answersTo(OP_GET_CHILDREN2, path) > listings, BOUND_MS, "W's listing once A went");
    await settledInWait(sW);
    expect([p.acquisition.outcome.state, w.acquisition.outcome.state]).toEqual(['pending', 'pending']);

    await held.release(); // W's new node two ahead: it lists again; P holds
    const grantedP = await within(p.acquisition.settled, BOUND_MS, 'P to acquire');
    await settledInWait(sW);
    expect(w.acquisition.outcome.state).toBe('pending');
    expect(held.signal.reason).toMatchObject({ code: 'RELEASED' }); // told its release, not a loss
    if (grantedP.state === 'resolved') await grantedP.value.release();
    const grantedW = await within(w.acquisition.settled, BOUND_MS, 'W to acquire after P released');
    expect(brief(grantedW)).toEqual({ state: 'resolved' });
    if (grantedW.state === 'resolved') await grantedW.value.release();
  });

  it("the listing made when the node two ahead went is held until the predecessor has released: W takes the lock on it when it comes, listing nothing more", async () => {
    const path = `${root}/two-ahead-listing-late`;
    const [sH, sW1, sOp] = await Promise.all([connect(), connect(), connect()]);
    const { session: sW2, proxy } = await connectThroughProxy();
    const held = await new InterProcessMutex(sH, path).acquire();
    const w1 = await enqueueWaiter(sW1, new InterProcessMutex(sW1, path), sOp, path, 2);
    const w2 = await enqueueWaiter(sW2, new InterProcessMutex(sW2, path), sOp, path, 3);

    const listings = proxy.requestsTo(OP_GET_CHILDREN2, path);
    proxy.holdRequests();
    await held.release();
    await pollUntil(() => proxy.requestsTo(OP_GET_CHILDREN2, path) > listings, BOUND_MS, "W2's listing (held at the proxy)");
    const granted1 = await within(w1.acquisition.settled, BOUND_MS, 'W1 to acquire');
    if (granted1.state !== 'resolved') throw new Error('W1 was not granted');
    // W1 releases while W2's listing is held: W2 reads W1's deletion before the listing's answer.
    const watching = sessionInternals(sW2).diagnostics.watchers;
    await granted1.value.release();
    await pollUntil(() => sessionInternals(sW2).diagnostics.watchers < watching, BOUND_MS, "W1's deletion read by W2");
    await new Promise((resolve) => setImmediate(resolve)); // ...and told (the session tells events a turn later)
    expect(w2.acquisition.outcome.state).toBe('pending');
    proxy.heal(); // the listing, served after W1's deletion, shows W2 first

    const granted2 = await within(w2.acquisition.settled, BOUND_MS, 'W2 to acquire');
    expect(brief(granted2)).toEqual({ state: 'resolved' });
    expect(proxy.requestsTo(OP_GET_CHILDREN2, path) - listings).toBe(1);
    if (granted2.state === 'resolved') await granted2.value.release();
  });
});

describe('InterProcessMutex safety: the holder is told when its node is deleted', () => {
  it("the operator deletes H's node: H's signal aborts with NODE_DELETED and `lost` is emitted; the waiter B then acquires; H's release() does not throw", async () => {
    const path = `${root}/holder-told`;
    const [sH, sB, sOp] = await Promise.all([connect(), connect(), connect()]);
    const operator = new Operator(sOp);
    const h = mutexOn(sH, path);
    const held = await h.mutex.acquire();
    const b = await enqueueWaiter(sB, new InterProcessMutex(sB, path), sOp, path, 2);

    await operator.deleteNode(held.path);
    await caughtUp(sH); // H has been sent the deletion before this reply

    expect({ signal: signalState(held.signal), lost: h.lost.map(codeOf) }).toEqual({
      signal: { aborted: true, code: 'NODE_DELETED' },
      lost: ['NODE_DELETED'],
    });
    const granted = await within(b.acquisition.settled, BOUND_MS, 'B to acquire');
    expect(brief(granted)).toEqual({ state: 'resolved' });
    await expect(held.release()).resolves.toBeUndefined();
    if (granted.state === 'resolved') await granted.value.release();
  });
});

describe('InterProcessSemaphoreMutex (not re-entrant, same engine) safety', () => {
  it('another session: the operator deletes the waiter B, then the holder H: B rejects with NODE_DELETED, a later C is the only holder', async () => {
    const path = `${root}/semaphore-mutex-waiter`;
    const [sH, sB, sC, sOp] = await Promise.all([connect(), connect(), connect(), connect()]);
    const operator = new Operator(sOp);
    const held = await new InterProcessSemaphoreMutex(sH, path).acquire();
    const heldSignal = held.signal; // the holder follows its lock from the grant, as its work would
    const acquisition = track(new InterProcessSemaphoreMutex(sB, path).acquire());
    const bNode = (await untilQueue(sOp, path, 2))[1]!;
    await settledInWait(sB);

    await operator.deleteNode(bNode);
    await operator.deleteNode(held.path);

    expect(brief(await within(acquisition.settled, BOUND_MS, 'B to settle'))).toEqual(rejectedNodeDeleted(bNode));
    const c = await within(new InterProcessSemaphoreMutex(sC, path).acquire(), BOUND_MS, 'C to acquire');
    await caughtUp(sH);
    expect(signalState(heldSignal)).toEqual({ aborted: true, code: 'NODE_DELETED' });
    await c.release();
  });

  it("a holder that first looks at its handle after the operator deleted its node is told within a round trip of that look", async () => {
    const path = `${root}/semaphore-mutex-late-look`;
    const [sH, sOp] = await Promise.all([connect(), connect()]);
    const held = await new InterProcessSemaphoreMutex(sH, path).acquire(); // nobody looks at it
    await new Operator(sOp).deleteNode(held.path);
    held.signal; // the first look: its node is watched from now on (docs/mutex.md, "Losing the lock")
    await caughtUp(sH); // the watch's answer (the node is gone) is in
    expect(signalState(held.signal)).toEqual({ aborted: true, code: 'NODE_DELETED' });
    expect(held.held).toBe(false);
    await held.release();
  });

  it("the operator deletes H's node: H's signal aborts with NODE_DELETED and `lost` is emitted; the waiter B then acquires", async () => {
    const path = `${root}/semaphore-mutex-holder`;
    const [sH, sB, sOp] = await Promise.all([connect(), connect(), connect()]);
    const operator = new Operator(sOp);
    const mutex = new InterProcessSemaphoreMutex(sH, path);
    const lost: Error[] = [];
    mutex.on('lost', (reason) => lost.push(reason));
    const held = await mutex.acquire();
    const acquisition = track(new InterProcessSemaphoreMutex(sB, path).acquire());
    await untilQueue(sOp, path, 2);
    await settledInWait(sB);

    await operator.deleteNode(held.path);
    await caughtUp(sH);

    expect({ signal: signalState(held.signal), lost: lost.map(codeOf) }).toEqual({ signal: { aborted: true, code: 'NODE_DELETED' }, lost: ['NODE_DELETED'] });
    const granted = await within(acquisition.settled, BOUND_MS, 'B to acquire');
    expect(brief(granted)).toEqual({ state: 'resolved' });
    await expect(held.release()).resolves.toBeUndefined();
    if (granted.state === 'resolved') await granted.value.release();
  });
});

describe('InterProcessMutex safety: a waiter whose process stalled past its session is not granted the lock', () => {
  it.each([
    ['frozen for 7.5 s', 'block'],
    ['stopped by SIGSTOP while its event loop waits for I/O, resumed (SIGCONT) once R holds', 'sigstop'],
  ] as const)(
    'P (another process, 3 s session) waits behind Q; Q releases while P is %s; R takes the lock after P expires: P never records a grant with a live signal while R holds',
    async (_, stall) => {
      const path = `${root}/stalled-waiter-${stall}`;
      const [sQ, sR, sOp] = await Promise.all([connect(), connect(), connect()]);
      const seen = await stalledWaiterScenario({
        script: STALLED_WAITER,
        connectString: testConnectString(),
        path,
        queueDir: path,
        sessionTimeoutMs: 3000,
        observer: sOp,
        holdQ: () => new InterProcessMutex(sQ, path).acquire(),
        startR: () => new InterProcessMutex(sR, path).acquire(),
        rSession: sR,
        stall,
      });
      expect(seen.rAborted).toBe(false);
      // P rejects (RETRIES_EXHAUSTED: its policy refuses a new session), or is granted with its signal already aborted.
      expect(seen.pGrantedLive, `P was granted with a live signal while R held: ${JSON.stringify(seen.p)}`).toBe(false);
    },
  );
});
