/**
 * A release's own delete is not someone else's deletion (engine/ownNode.ts, `OwnNodeWatch`,
 * docs/architecture.md, "A grant requires our node").
 *
 * The watch on a holder's own node, after a grant on a fresh listing, is sent unawaited as soon as
 * someone looks at the holding (here its signal: `OwnNodeWatch.watchHolding`; unlooked at, 10 ms
 * after the grant): a holder that releases in that turn sends its delete in the same write,
 * before that watch's reply is read. The release gives the watch up (`leavingNow`), but the
 * watch's reply, read afterwards, registered it again; the deletion event our own delete then
 * fires was read and told as someone else's when it was read a turn before the delete's reply:
 * the holder's signal aborted with NODE_DELETED and the lock emitted `lost`, during an ordinary
 * release. The proxy hands the client the server's frames one at a time, a turn apart, so that
 * every release here takes that path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZkSession } from '@zk-recipes/core';
import { exclusiveRule, LockQueue, QueueLock } from '@zk-recipes/core/recipe-kit';
import { sessionInternals } from '@zk-recipes/core/internal';
import { FaultProxy } from '../../../testing/src/FaultProxy.js';
import { pacedReplies, type PacedProxy } from '../support/pacedReplies.js';
import { codeOf, Operator, within } from '../support/adversary.js';
import { pollUntil, sharedServer, uniqueRoot } from '../session/support.js';

const root = uniqueRoot('own-delete');
const CYCLES = 20;
/** Between two frames the client reads: long enough for a turn of its event loop, setImmediate callbacks included. */
const GAP_MS = 20;
let proxy: PacedProxy;
let session: ZkSession;

beforeAll(async () => {
  proxy = await pacedReplies(sharedServer(), GAP_MS);
  session = await ZkSession.connect({ connectString: proxy.connectString, sessionTimeoutMs: 10_000 });
});
afterAll(async () => {
  await session.close();
  await proxy.close();
});

describe('a release whose own deletion is read before its delete is answered', () => {
  it(`tells nobody: no 'lost', and the handle's signal aborts only as released (RELEASED, never NODE_DELETED) (${CYCLES} releases in the turn after the grant)`, async () => {
    const lock = new QueueLock({
      queue: new LockQueue(session, `${root}/mutex`),
      kind: 'lock-',
      rule: exclusiveRule,
      reentrant: true,
      name: 'OwnDeleteTest',
      recipe: 'mutex',
    });
    const lost: Error[] = [];
    lock.on('lost', (reason) => lost.push(reason));
    const aborted: unknown[] = [];
    const watchesOut: number[] = [];
    for (let i = 0; i < CYCLES; i++) {
      const released = await lock.acquire().then(async (handle) => {
        handle.signal.addEventListener('abort', () => aborted.push(handle.signal.reason));
        // The turn after the grant: the holding has just sent the watch on its own node (queued
        // before this callback), and its reply cannot have been read yet. Released now, the
        // delete leaves in the same write.
        await new Promise((resolve) => setImmediate(resolve));
        watchesOut.push(sessionInternals(session).diagnostics.pendingCalls);
        await handle.release();
        return handle;
      });
      expect(released.held).toBe(false);
    }
    // Everything the server sent for those cycles is read before this answer (paced like the rest).
    await session.exists('/');
    expect(watchesOut).toEqual(Array.from({ length: CYCLES }, () => 1));
    // Each signal aborts at its release() (docs/mutex.md, "What `held` and `signal` promise"), and
    // with that reason alone: not with the deletion our own delete fired.
    expect({ lost: lost.map((e) => e.message), aborted: aborted.map(codeOf) }).toEqual({ lost: [], aborted: Array.from({ length: CYCLES }, () => 'RELEASED') });
  });
});

describe('a holder granted on a fresh listing (its own-node watch set a turn later)', () => {
  it('is told when someone else deletes its node before that watch is set: signal aborted with NODE_DELETED, lost emitted', async () => {
    const OP_GET_CHILDREN2 = 12;
    const server = sharedServer();
    const faults = await FaultProxy.start({ targetPort: server.port, targetHost: server.host });
    const holderSession = await ZkSession.connect({ connectString: faults.connectString, sessionTimeoutMs: 10_000 });
    const operatorSession = await ZkSession.connect({ connectString: server.connectString, sessionTimeoutMs: 10_000 });
    try {
      const lock = new QueueLock({
        queue: new LockQueue(holderSession, `${root}/deleted-early`),
        kind: 'lock-',
        rule: exclusiveRule,
        reentrant: true,
        name: 'OwnDeleteTest',
        recipe: 'mutex',
      });
      const lost = new Promise<Error>((resolve) => lock.once('lost', resolve));
      // From the grant's turn on, nothing the holder sends reaches the server: the watch on its
      // node, sent a turn later, waits in the proxy while the operator deletes the node.
      const handle = await lock.acquire().then((granted) => {
        faults.holdRequests();
        return granted;
      });
      await pollUntil(() => faults.requestsTo(OP_GET_CHILDREN2, handle.path) >= 1, 10_000, 'the own-node watch sent (held)');
      expect(handle.signal.aborted).toBe(false);
      await new Operator(operatorSession).deleteNode(handle.path);
      faults.heal();
      const reason = await within(lost, 10_000, "the holder's lost event");
      expect([codeOf(reason), handle.signal.aborted, codeOf(handle.signal.reason)]).toEqual(['NODE_DELETED', true, 'NODE_DELETED']);
      await handle.release(); // its node is gone: nothing to delete, and no error
    } finally {
      await Promise.all([holderSession.close(), operatorSession.close()]);
      await faults.close();
    }
  });
});
