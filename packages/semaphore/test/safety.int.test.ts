/**
 * Safety of InterProcessSemaphore under an adversary: an operator deletes lease nodes.
 * Never more leases than `maxLeases`; a waiter whose node is gone is refused with NODE_DELETED; a
 * holder whose lease node is gone is told (the lease's signal aborts and the semaphore emits `lost`).
 *
 * Both layouts: `queue` (the lease queue at the semaphore's path) and `curator` (Curator's
 * InterProcessSemaphoreV2: an internal lock at `<path>/locks`, lease nodes at `<path>/leases`).
 * Every order below is built from round trips and events (see `caughtUp`).
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ZkSession } from '@zk-recipes/core';
import { InterProcessSemaphore, type Lease, type SemaphoreLayout } from '@zk-recipes/semaphore';
import { testConnectString, uniqueRoot } from '@zk-recipes/testing';
import { brief, caughtUp, Operator, settledInWait, signalState, track, untilQueue, within, type Tracked } from '../../core/test/support/adversary.js';
import { stalledWaiterScenario } from '../../core/test/support/stalledWaiter.js';

const STALLED_WAITER = fileURLToPath(new URL('./workers/stalledWaiter.ts', import.meta.url));

const root = uniqueRoot('semaphore-safety');
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

const semaphoreOf = (session: ZkSession, path: string, layout: SemaphoreLayout) => new InterProcessSemaphore(session, path, { maxLeases: 1, layout });

/** Where a layout keeps its lease nodes. */
const leasesDir = (path: string, layout: SemaphoreLayout) => (layout === 'queue' ? path : `${path}/leases`);

/** Starts an acquisition and returns once it waits on the server (its lease node is the `count`-th). */
async function enqueueWaiter(
  session: ZkSession,
  observer: ZkSession,
  path: string,
  layout: SemaphoreLayout,
  count: number,
): Promise<{ acquisition: Tracked<Lease>; node: string }> {
  const acquisition = track(semaphoreOf(session, path, layout).acquire());
  const queue = await untilQueue(observer, leasesDir(path, layout), count);
  await settledInWait(session);
  return { acquisition, node: queue[count - 1]! };
}

const REJECTED_NODE_DELETED = (node: string) => ({ state: 'rejected', code: 'NODE_DELETED', path: node, typed: true });

for (const layout of ['queue', 'curator'] as const) {
  describe(`InterProcessSemaphore (${layout} layout) safety`, () => {
    // The semaphore's first waiter already watches its own node, so today it is refused here too,
    // with NO_NODE: this pins that refusal, under the contract's code.
    it("one lease, holder H, waiter B: the operator deletes B's node, then H's: B is refused with NODE_DELETED (pins today's refusal; the code is new), a later C holds, H is told", async () => {
      const path = freshPath(`${layout}-waiter-deleted`);
      const [sH, sB, sC, sOp] = await Promise.all([connect(), connect(), connect(), connect()]);
      const operator = new Operator(sOp);
      const held = await semaphoreOf(sH, path, layout).acquire();
      const heldSignal = held.signal; // the holder follows its lease from the grant, as its work would
      const b = await enqueueWaiter(sB, sOp, path, layout, 2);

      await operator.deleteNode(b.node);
      await operator.deleteNode(held.path);

      expect(brief(await within(b.acquisition.settled, BOUND_MS, 'B to settle'))).toEqual(REJECTED_NODE_DELETED(b.node));
      const c = await within(semaphoreOf(sC, path, layout).acquire(), BOUND_MS, 'C to acquire');
      await caughtUp(sH);
      expect(signalState(heldSignal)).toEqual({ aborted: true, code: 'NODE_DELETED' });
      await c.release();
    });

    it("one lease held, a waiter B: the operator deletes the holder's lease node: its signal aborts with NODE_DELETED, B acquires, release() does not throw", async () => {
      const path = freshPath(`${layout}-holder-told`);
      const [sH, sB, sOp] = await Promise.all([connect(), connect(), connect()]);
      const operator = new Operator(sOp);
      const semaphore = semaphoreOf(sH, path, layout);
      const lost: Array<{ code: unknown; leasePath: string }> = [];
      semaphore.on('lost', (reason, leasePath) => lost.push({ code: (reason as { code?: unknown }).code, leasePath }));
      const held = await semaphore.acquire();
      const b = await enqueueWaiter(sB, sOp, path, layout, 2);

      await operator.deleteNode(held.path);
      await caughtUp(sH); // H has been sent the deletion before this reply

      expect(signalState(held.signal)).toEqual({ aborted: true, code: 'NODE_DELETED' });
      expect(lost).toEqual([{ code: 'NODE_DELETED', leasePath: held.path }]);
      const granted = await within(b.acquisition.settled, BOUND_MS, 'B to acquire');
      expect(brief(granted)).toEqual({ state: 'resolved' });
      await expect(held.release()).resolves.toBeUndefined();
      if (granted.state === 'resolved') await granted.value.release();
    });
  });
}

describe('InterProcessSemaphore (queue layout) safety: deleteall', () => {
  it('deleteall of the semaphore, youngest child first (holder H, waiters W1 and W2): W1 and W2 are refused with NODE_DELETED (pins today\'s refusal; the code is new), H is told, only the late contender C holds', async () => {
    const path = freshPath('queue-deleteall');
    const [sH, sW1, sW2, sC, sOp] = await Promise.all([connect(), connect(), connect(), connect(), connect()]);
    const operator = new Operator(sOp);
    const held = await semaphoreOf(sH, path, 'queue').acquire();
    const heldSignal = held.signal; // H follows its lease from the grant, as its work would
    const w1 = await enqueueWaiter(sW1, sOp, path, 'queue', 2);
    const w2 = await enqueueWaiter(sW2, sOp, path, 'queue', 3);

    expect(await operator.deleteAllYoungestFirst(path)).toEqual([w2.node, w1.node, held.path, path]);

    const [w1Outcome, w2Outcome] = await within(Promise.all([w1.acquisition.settled, w2.acquisition.settled]), BOUND_MS, 'W1 and W2 to settle');
    const c = await within(semaphoreOf(sC, path, 'queue').acquire(), BOUND_MS, 'C to acquire');
    await caughtUp(sH);
    expect({ w1: brief(w1Outcome), w2: brief(w2Outcome), holder: signalState(heldSignal) }).toEqual({
      w1: REJECTED_NODE_DELETED(w1.node),
      w2: REJECTED_NODE_DELETED(w2.node),
      holder: { aborted: true, code: 'NODE_DELETED' },
    });
    await c.release();
  });
});

describe('InterProcessSemaphore (queue layout) safety: a waiter whose process stalled past its session gets no lease', () => {
  it('one lease: P (another process, 3 s session) waits behind Q; Q releases while P is frozen for 7.5 s; R takes the lease after P expires: P never records a grant with a live signal while R holds', async () => {
    const path = freshPath('stalled-waiter');
    const [sQ, sR, sOp] = await Promise.all([connect(), connect(), connect()]);
    const seen = await stalledWaiterScenario({
      script: STALLED_WAITER,
      connectString: testConnectString(),
      path,
      queueDir: path,
      sessionTimeoutMs: 3000,
      observer: sOp,
      holdQ: () => semaphoreOf(sQ, path, 'queue').acquire(),
      startR: () => semaphoreOf(sR, path, 'queue').acquire(),
      rSession: sR,
    });
    expect(seen.rAborted).toBe(false);
    // P rejects (SESSION_LOST), or is granted with its signal already aborted.
    expect(seen.pGrantedLive, `P was granted with a live signal while R held: ${JSON.stringify(seen.p)}`).toBe(false);
  });
});
