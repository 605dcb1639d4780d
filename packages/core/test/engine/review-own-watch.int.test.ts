/**
 * Review of the issue-13 changes (adversarial): one test per finding, each a regression test now.
 * Findings 1-3 were fixed in 1b7291a while the review ran; 4 and 5 failed on 0e8b3ab and are fixed
 * since (downgrade.ts).
 *
 * 1. A holder granted while the watch on its own node (OwnNodeWatch.arm, an unawaited
 *    getChildren) is still in flight loses that watch for good if the connection drops before its
 *    reply: CONNECTION_LOSS leaves the state `unknown`, nothing arms it again once held (only a
 *    fresh listing does, and a holder never lists), and the wire client never registered it, so
 *    SetWatches does not set it again. An operator's delete is then never told.
 * 2. A read/write downgrade creates its read node unconditionally: if the write node was deleted
 *    by someone else (the holder not told yet), a writer waiting on it is granted, and then the
 *    read node is created at the vanished place and adopted as a read grant that nothing ever
 *    aborts: a reader and a writer hold together.
 * 3. A re-entrant acquire in a context that held the lock before close() rejects with
 *    SESSION_LOST, not SESSION_CLOSED.
 * 4. A downgrade after close() rejects with SESSION_LOST (throwIfCannotProceed).
 * 5. A downgrade whose multi was applied but whose reply was lost, and whose write
 *    node someone else then deleted, rejects with NODE_DELETED and leaves its read node behind: an
 *    ephemeral node of a live session at the write node's place, held by nobody, that every later
 *    writer waits behind until that session ends.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ZkSession, type LockHandle } from '@zk-recipes/core';
import { exclusiveRule, LockQueue, QueueLock } from '@zk-recipes/core/recipe-kit';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { FaultProxy } from '../../../testing/src/FaultProxy.js';
import { pollUntil } from '../../../testing/src/observeNodes.js';
import { caughtUp, codeOf, Operator, settledInWait, track, untilQueue, within } from '../support/adversary.js';
import { nextEvent, sharedServer, uniqueRoot } from '../session/support.js';

const OP_GET_CHILDREN2 = 12;
const OP_MULTI = 14;
const root = uniqueRoot('review-own-watch');
const BOUND_MS = 15_000;
let sessions: ZkSession[] = [];
let proxies: FaultProxy[] = [];

async function connect(connectString = sharedServer().connectString): Promise<ZkSession> {
  const session = await ZkSession.connect({ connectString, sessionTimeoutMs: 6000 });
  sessions.push(session);
  return session;
}

async function proxied(): Promise<{ proxy: FaultProxy; session: ZkSession }> {
  const server = sharedServer();
  const proxy = await FaultProxy.start({ targetPort: server.port, targetHost: server.host });
  proxies.push(proxy);
  return { proxy, session: await connect(proxy.connectString) };
}

afterEach(async () => {
  const open = sessions;
  sessions = [];
  await Promise.all(open.map((s) => s.close()));
  const ps = proxies;
  proxies = [];
  await Promise.all(ps.map((p) => p.close()));
});

/** Replies to our own requests (not pings, not the connect response) that went through the proxy since `mark`. */
function repliesSince(proxy: FaultProxy, mark: number): number {
  return proxy.frames.slice(mark).filter((f) => f.direction === 'reply' && f.xid !== undefined && f.xid >= 0).length;
}

describe('review: the holder is told when its node is deleted', () => {
  it('even when the connection dropped while the watch on its own node was still in flight at the grant', async () => {
    const path = `${root}/arm-lost`;
    const { proxy, session: sH } = await proxied();
    const [sC, sOp] = await Promise.all([connect(), connect()]);
    await sH.mkdirp(path);
    const queue = new LockQueue(sH, path);

    // Hold the server's answers to the create and its pipelined listing until both were produced.
    const mark = proxy.frames.length;
    proxy.holdReplies();
    const granted = queue.enter({ kind: 'lock-', rule: exclusiveRule });
    await pollUntil(() => repliesSince(proxy, mark) >= 2, BOUND_MS, 'create and listing answered');
    // Deliver them, and hold whatever the server sends next: the reply to the own-node watch.
    proxy.heal();
    proxy.holdReplies();
    const seat = await within(granted, BOUND_MS, 'the uncontended grant');
    const requests = () => proxy.frames.slice(mark).filter((f) => f.direction === 'request' && f.type === OP_GET_CHILDREN2).length;
    await pollUntil(() => requests() >= 2 && repliesSince(proxy, mark) >= 3, BOUND_MS, 'own-node watch sent and answered (held)');
    // The connection drops before that reply reaches the client: the request fails with CONNECTION_LOSS.
    const reconnected = nextEvent(sH, 'reconnected', BOUND_MS);
    proxy.dropConnections();
    proxy.heal();
    await reconnected;
    await caughtUp(sH);

    // Now an operator deletes the holder's node.
    await new Operator(sOp).deleteNode(seat.path);
    // Another process takes the lock.
    const other = await within(new LockQueue(sC, path).enter({ kind: 'lock-', rule: exclusiveRule }), BOUND_MS, 'C to acquire');
    await caughtUp(sH);
    await caughtUp(sH);
    // The first holder must have been told (signal aborted with NODE_DELETED); it was not.
    expect({ aborted: seat.signal.aborted, code: codeOf(seat.signal.reason) }).toEqual({ aborted: true, code: 'NODE_DELETED' });
    await new LockQueue(sC, path).leave(other);
  });
});

describe('review: a read/write downgrade never grants at a place that is gone', () => {
  it('write node deleted by an operator (holder not told yet), a writer behind takes the write lock, then the holder downgrades: reader and writer must not both hold', async () => {
    const path = `${root}/downgrade-race`;
    const { proxy, session: sH } = await proxied();
    const [sW, sOp] = await Promise.all([connect(), connect()]);
    const rwH = new InterProcessReadWriteLock(sH, path);
    const write = await rwH.writeLock().acquire();
    const writer2 = track(new InterProcessReadWriteLock(sW, path).writeLock().acquire());
    await untilQueue(sOp, path, 2);
    await settledInWait(sW);

    // H hears nothing from now on (its requests still reach the server).
    proxy.holdReplies();
    await new Operator(sOp).deleteNode(write.path);
    const w2 = await within(writer2.settled, BOUND_MS, 'the writer behind to be granted');
    expect(w2.state).toBe('resolved');
    const w2Handle = (w2 as { value: LockHandle }).value;

    // Still in the write holder's context: downgrade. Its request reaches the server (its reply is held).
    const mark = proxy.frames.length;
    const read = track(rwH.readLock().acquire());
    await pollUntil(() => proxy.frames.slice(mark).some((f) => f.direction === 'reply' && f.xid !== undefined && f.xid >= 0), BOUND_MS, 'the downgrade answered (held)');
    proxy.heal();
    const outcome = await within(read.settled, BOUND_MS, 'the downgrade to settle');
    await caughtUp(sH);
    await caughtUp(sH);
    const readerHolds = outcome.state === 'resolved' && !(outcome.value as LockHandle).signal.aborted;
    const writerHolds = !w2Handle.signal.aborted;
    expect({ readerHolds, writerHolds }).not.toEqual({ readerHolds: true, writerHolds: true });
    await w2Handle.release();
  });
});

describe('review: SESSION_CLOSED for everything after close()', () => {
  it('a re-entrant acquire in a context that held the lock before close()', async () => {
    const path = `${root}/reenter-after-close`;
    const session = await connect();
    const lock = new QueueLock({ queue: new LockQueue(session, path), kind: 'lock-', rule: exclusiveRule, reentrant: true, name: 'ReviewLock', recipe: 'mutex' });
    await lock.acquire();
    await session.close();
    const again = track(lock.acquire());
    const outcome = await within(again.settled, BOUND_MS, 'the re-entrant acquire to settle');
    expect(outcome.state === 'rejected' ? codeOf(outcome.reason) : 'resolved').toBe('SESSION_CLOSED');
  });
});

describe('review: the downgrade after close() and after a lost reply', () => {
  it('a downgrade in a context that held the write lock before close() rejects with SESSION_CLOSED', async () => {
    const path = `${root}/downgrade-after-close`;
    const session = await connect();
    const rw = new InterProcessReadWriteLock(session, path);
    await rw.writeLock().acquire();
    await session.close();
    const read = track(rw.readLock().acquire());
    const outcome = await within(read.settled, BOUND_MS, 'the downgrade to settle');
    expect(outcome.state === 'rejected' ? codeOf(outcome.reason) : 'resolved').toBe('SESSION_CLOSED');
  });

  it('multi applied, reply lost, write node then deleted by an operator: the read node does not stay behind', async () => {
    const path = `${root}/downgrade-orphan`;
    const { proxy, session: sH } = await proxied();
    const sOp = await connect();
    const rwH = new InterProcessReadWriteLock(sH, path);
    const write = await rwH.writeLock().acquire();
    const readNode = write.path.replace('-write-', '-read-');

    // The downgrade's multi reaches the server and is applied; its reply is swallowed, the
    // connection cut, and H kept away from the server for a moment.
    const cut = proxy.cutAfterNextRequest(OP_MULTI);
    const read = track(rwH.readLock().acquire());
    await within(cut, BOUND_MS, 'the multi to be applied and the connection cut');
    proxy.refuseConnections(true);
    expect(await sOp.exists(readNode)).not.toBeNull();
    // Meanwhile an operator deletes the write node.
    await new Operator(sOp).deleteNode(write.path);
    const reconnected = nextEvent(sH, 'reconnected', BOUND_MS);
    proxy.refuseConnections(false);
    await reconnected;

    const outcome = await within(read.settled, BOUND_MS, 'the downgrade to settle');
    expect(outcome.state === 'rejected' ? codeOf(outcome.reason) : 'resolved').toBe('NODE_DELETED');
    await caughtUp(sH);
    await caughtUp(sH);
    // Nobody holds anything; the read node of the failed downgrade must not stay (it would block
    // every writer until H's session ends).
    expect(await sOp.exists(readNode)).toBeNull();
  });
});
