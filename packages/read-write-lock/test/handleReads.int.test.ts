/**
 * What a read or write lock's handle says when it is read (docs/mutex.md, "What `held` and
 * `signal` promise"; the read/write lock's handles are the same): still ours, checked now. After
 * this process was stopped past its session, the first read says lost; from `release()` on, and
 * from `session.close()` on, not held. A downgrade's two handles end one by one.
 */
import { describe, expect, it } from 'vitest';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import type { ZkSession } from '@zk-recipes/core';
import { uniqueRoot } from '@zk-recipes/testing';
import { READ_ORDERS, freezePast, readNow, useHandleReadsFixture } from '../../core/test/support/handleReads.js';

const root = uniqueRoot('rwlock-handle-reads');
const fixture = useHandleReadsFixture();

const KINDS = ['read', 'write'] as const;
const lockOf = (session: ZkSession, path: string, kind: 'read' | 'write') => {
  const rw = new InterProcessReadWriteLock(session, path);
  return kind === 'read' ? rw.readLock() : rw.writeLock();
};

describe.each(KINDS)('the %s lock handle', (kind) => {
  it.each(READ_ORDERS)('after this process was stopped past its session, read %s: lost (SESSION_LOST) before any timer has run', async (order) => {
    const session = await fixture.connect(2000);
    const handle = await lockOf(session, `${root}/${kind}/freeze-${order.replace(' ', '-')}`, kind).acquire();
    freezePast(session);
    expect(readNow(handle, order), 'the first read after waking').toEqual({ held: false, aborted: true, reason: 'SESSION_LOST' });
    await handle.release();
  });

  it("from release() on: not held and its signal aborted (RELEASED), while the delete's reply is held back and a writer of another session takes the lock", async () => {
    const dir = `${root}/${kind}/release`;
    const { session, proxy } = await fixture.connectThroughProxy();
    const handle = await lockOf(session, dir, kind).acquire();
    const kept = handle.signal;
    proxy.holdReplies();
    const releasing = handle.release();
    expect(readNow(handle), 'right after release() was called').toEqual({ held: false, aborted: true, reason: 'RELEASED' });
    expect(kept.aborted).toBe(true);
    const writer = await lockOf(await fixture.connect(), dir, 'write').acquire({ timeoutMs: 10_000 });
    expect(readNow(handle), 'while a writer of another session holds the lock').toEqual({ held: false, aborted: true, reason: 'RELEASED' });
    proxy.heal();
    await releasing;
    await writer.release();
  });

  it('from session.close() on: not held and its signal aborted (SESSION_CLOSED)', async () => {
    const session = await fixture.connect();
    const handle = await lockOf(session, `${root}/${kind}/close`, kind).acquire();
    const closing = session.close();
    expect(readNow(handle), 'right after close() was called').toEqual({ held: false, aborted: true, reason: 'SESSION_CLOSED' });
    await closing;
    await handle.release();
  });
});

describe('a downgrade (write lock, then the read lock in the same context)', () => {
  it("releasing the write handle ends it alone: the read handle still holds, its signal live; each read after a freeze says lost", async () => {
    const session = await fixture.connect(2000);
    const rw = new InterProcessReadWriteLock(session, `${root}/downgrade`);
    const write = await rw.writeLock().acquire();
    const read = await rw.readLock().acquire();
    const readSignal = read.signal;
    await write.release();
    expect(readNow(write)).toEqual({ held: false, aborted: true, reason: 'RELEASED' });
    expect(readNow(read)).toEqual({ held: true, aborted: false, reason: undefined });
    expect(await session.exists(read.path)).not.toBeNull();
    freezePast(session);
    expect(readSignal.aborted, 'the read handle\'s signal before any read after waking').toBe(false); // no timer has run
    expect(readNow(read), 'the first read after waking').toEqual({ held: false, aborted: true, reason: 'SESSION_LOST' });
    expect(readSignal.aborted).toBe(true);
    await read.release();
  });
});
