/**
 * A release's own delete is not someone else's deletion (engine/ownNode.ts, `OwnNodeWatch`,
 * docs/architecture.md, "A grant requires our node").
 *
 * The watch on a holder's own node is sent, unawaited, right behind the grant: a holder that
 * releases at once sends its delete in the same write, before that watch's reply is read. The
 * release gives the watch up (`leavingNow`), but the watch's reply, read afterwards, registered it
 * again; the deletion event our own delete then fires was read and told as someone else's when it
 * was read a turn before the delete's reply: the holder's signal aborted with NODE_DELETED and the
 * lock emitted `lost`, during an ordinary release. The proxy hands the client the server's frames
 * one at a time, a turn apart, so that every release here takes that path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exclusiveRule, LockQueue, QueueLock, ZkSession } from '@zk-recipes/core';
import { pacedReplies, type PacedProxy } from '../support/pacedReplies.js';
import { sharedServer, uniqueRoot } from '../session/support.js';

const root = uniqueRoot('own-delete');
const CYCLES = 10;
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
  it(`tells nobody: no 'lost', and the handle's signal does not abort (${CYCLES} releases right at the grant)`, async () => {
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
    for (let i = 0; i < CYCLES; i++) {
      // Released in the turn of the grant, so the delete leaves with the own-node watch.
      const released = await lock.acquire().then((handle) => {
        handle.signal.addEventListener('abort', () => aborted.push(handle.signal.reason));
        return handle.release().then(() => handle);
      });
      expect(released.held).toBe(false);
    }
    // Everything the server sent for those cycles is read before this answer (paced like the rest).
    await session.exists('/');
    expect({ lost: lost.map((e) => e.message), aborted: aborted.length }).toEqual({ lost: [], aborted: 0 });
  });
});
