/**
 * Safety of InterProcessReadWriteLock under an adversary: an operator deletes lock
 * nodes, a third client writes a waiting writer's node. Never a writer beside another holder; a
 * waiter whose node is gone is refused with NODE_DELETED; a holder whose node is gone is told
 * (signal + `lost` on its readLock() / writeLock()).
 *
 * Every order below is built from round trips and events (see `caughtUp`): ZooKeeper answers one
 * session in order and sends its watch events before the replies to its later requests.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ZkSession, type LockHandle } from '@zk-recipes/core';
import { InterProcessReadWriteLock, type ReadLock, type WriteLock } from '@zk-recipes/read-write-lock';
import { testConnectString, uniqueRoot } from '@zk-recipes/testing';
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

const STALLED_READER = fileURLToPath(new URL('./workers/stalledReader.ts', import.meta.url));

type Kind = 'read' | 'write';
const who = (kind: Kind) => (kind === 'read' ? 'reader' : 'writer');

const root = uniqueRoot('rwlock-safety');
const BOUND_MS = 15_000;
let sessions: ZkSession[] = [];
let counter = 0;
const freshPath = (label: string) => `${root}/${++counter}-${label}`;

async function connect(): Promise<ZkSession> {
  const session = await ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs: 6000 });
  sessions.push(session);
  return session;
}

afterEach(async () => {
  const open = sessions;
  sessions = [];
  await Promise.all(open.map((s) => s.close()));
});

/** The read or write half of a new InterProcessReadWriteLock object, with its `lost` events recorded. */
function halfOf(session: ZkSession, path: string, kind: Kind): { lock: ReadLock | WriteLock; lost: Error[] } {
  const rw = new InterProcessReadWriteLock(session, path);
  const lock = kind === 'read' ? rw.readLock() : rw.writeLock();
  const lost: Error[] = [];
  lock.on('lost', (reason) => lost.push(reason));
  return { lock, lost };
}

/** Starts an acquisition and returns once it waits on the server (its node is the `count`-th). */
async function enqueueWaiter(
  session: ZkSession,
  kind: Kind,
  observer: ZkSession,
  path: string,
  count: number,
  signal?: AbortSignal,
): Promise<{ acquisition: Tracked<LockHandle>; node: string }> {
  const { lock } = halfOf(session, path, kind);
  const acquisition = track(lock.acquire(signal === undefined ? undefined : { signal }));
  const queue = await untilQueue(observer, path, count);
  await settledInWait(session);
  return { acquisition, node: queue[count - 1]! };
}

const REJECTED_NODE_DELETED = (node: string) => ({ state: 'rejected', code: 'NODE_DELETED', path: node, typed: true });

describe('InterProcessReadWriteLock safety: a waiter whose own node was deleted never gets the lock', () => {
  for (const waiter of ['read', 'write'] as const) {
    it(`${who(waiter)} behind a writer, another session: the operator deletes the waiter B, then the writer H: B rejects with NODE_DELETED, a later writer C is the only holder`, async () => {
      const path = freshPath(`${waiter}-behind-writer`);
      const [sH, sB, sC, sOp] = await Promise.all([connect(), connect(), connect(), connect()]);
      const operator = new Operator(sOp);
      const held = await halfOf(sH, path, 'write').lock.acquire();
      const b = await enqueueWaiter(sB, waiter, sOp, path, 2);

      await operator.deleteNode(b.node);
      await operator.deleteNode(held.path);

      expect(brief(await within(b.acquisition.settled, BOUND_MS, 'B to settle'))).toEqual(REJECTED_NODE_DELETED(b.node));
      const c = await within(halfOf(sC, path, 'write').lock.acquire(), BOUND_MS, 'C to acquire');
      await caughtUp(sH);
      expect(signalState(held.signal)).toEqual({ aborted: true, code: 'NODE_DELETED' });
      await c.release();
    });

    it(`${who(waiter)} behind a writer, same session (local hand-over): B is deleted, then H releases: B rejects with NODE_DELETED, a later writer C is the only holder`, async () => {
      const path = freshPath(`${waiter}-behind-writer-local`);
      const [sA, sC, sOp] = await Promise.all([connect(), connect(), connect()]);
      const operator = new Operator(sOp);
      const held = await halfOf(sA, path, 'write').lock.acquire();
      const b = await enqueueWaiter(sA, waiter, sOp, path, 2);

      await operator.deleteNode(b.node);
      await caughtUp(sA); // the session has been told of the deletion before the holder hands over
      await held.release();

      expect(brief(await within(b.acquisition.settled, BOUND_MS, 'B to settle'))).toEqual(REJECTED_NODE_DELETED(b.node));
      const c = await within(halfOf(sC, path, 'write').lock.acquire(), BOUND_MS, 'C to acquire');
      await c.release();
    });
  }

  it('deleteall of the lock directory, youngest child first (writer H and writer W1 in one session, reader W2 in another): only the late writer C holds', async () => {
    const path = freshPath('deleteall');
    const [sA, sW2, sC, sOp] = await Promise.all([connect(), connect(), connect(), connect()]);
    const operator = new Operator(sOp);
    const h = halfOf(sA, path, 'write');
    const held = await h.lock.acquire();
    const w1 = await enqueueWaiter(sA, 'write', sOp, path, 2);
    const w2 = await enqueueWaiter(sW2, 'read', sOp, path, 3);

    expect(await operator.deleteAllYoungestFirst(path)).toEqual([w2.node, w1.node, held.path, path]);

    const [w1Outcome, w2Outcome] = await within(Promise.all([w1.acquisition.settled, w2.acquisition.settled]), BOUND_MS, 'W1 and W2 to settle');
    const c = await within(halfOf(sC, path, 'write').lock.acquire(), BOUND_MS, 'C to acquire');
    await caughtUp(sA);
    expect({ w1: brief(w1Outcome), w2: brief(w2Outcome), holder: signalState(held.signal), lost: h.lost.map(codeOf) }).toEqual({
      w1: REJECTED_NODE_DELETED(w1.node),
      w2: REJECTED_NODE_DELETED(w2.node),
      holder: { aborted: true, code: 'NODE_DELETED' },
      lost: ['NODE_DELETED'],
    });
    await c.release();
  });
});

describe('InterProcessReadWriteLock safety: a foreign write on a waiting writer never passes the lock on', () => {
  for (const waiter of ['write', 'read'] as const) {
    for (const [label, data] of [
      ['random bytes', randomBytes(16)],
      ["Curator's __REVOKE__", Buffer.from('__REVOKE__')],
    ] as const) {
      it(`${who(waiter)} W2 behind writer W1 behind writer H: ${label} written to W1's node, then W1 aborts: W2 does not hold while H holds, and gets the lock when H releases`, async () => {
        const path = freshPath(`foreign-write-${waiter}`);
        const [sH, sW1, sW2, sOp] = await Promise.all([connect(), connect(), connect(), connect()]);
        const operator = new Operator(sOp);
        const held = await halfOf(sH, path, 'write').lock.acquire();
        const giveUp = new AbortController();
        const w1 = await enqueueWaiter(sW1, 'write', sOp, path, 2, giveUp.signal);
        const w2 = await enqueueWaiter(sW2, waiter, sOp, path, 3);

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
  }
});

describe('InterProcessReadWriteLock safety: the holder is told when its node is deleted', () => {
  for (const [holder, waiter] of [
    ['read', 'write'],
    ['write', 'read'],
  ] as const) {
    it(`${holder} lock held, a ${who(waiter)} waits; the operator deletes the holder's node: its signal aborts with NODE_DELETED, ${holder}Lock() emits \`lost\`, the ${who(waiter)} acquires, release() does not throw`, async () => {
      const path = freshPath(`holder-told-${holder}`);
      const [sH, sB, sOp] = await Promise.all([connect(), connect(), connect()]);
      const operator = new Operator(sOp);
      const h = halfOf(sH, path, holder);
      const held = await h.lock.acquire();
      const b = await enqueueWaiter(sB, waiter, sOp, path, 2);

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
  }
});

describe('InterProcessReadWriteLock safety: a reader whose process stalled past its session is not granted the lock beside a writer', () => {
  it('reader P (another process, 3 s session) waits behind writer Q; Q releases while P is frozen for 7.5 s; writer R takes the lock after P expires: P never records a grant with a live signal while R holds', async () => {
    const path = freshPath('stalled-reader');
    const [sQ, sR, sOp] = await Promise.all([connect(), connect(), connect()]);
    const seen = await stalledWaiterScenario({
      script: STALLED_READER,
      connectString: testConnectString(),
      path,
      queueDir: path,
      sessionTimeoutMs: 3000,
      observer: sOp,
      holdQ: () => halfOf(sQ, path, 'write').lock.acquire(),
      startR: () => halfOf(sR, path, 'write').lock.acquire(),
      rSession: sR,
    });
    expect(seen.rAborted).toBe(false);
    // P rejects (SESSION_LOST), or is granted with its signal already aborted.
    expect(seen.pGrantedLive, `P was granted with a live signal while R held: ${JSON.stringify(seen.p)}`).toBe(false);
  });
});
