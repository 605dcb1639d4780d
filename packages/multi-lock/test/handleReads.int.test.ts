/**
 * What a multi-lock's handle says when it is read (docs/multi-lock.md; the same promise as a
 * mutex handle's, docs/mutex.md "What `held` and `signal` promise"): every member still ours,
 * checked now. After this process was stopped past its session, the first read says lost; from
 * `release()` on, and from `session.close()` on, not held, whatever the server has answered yet.
 */
import { describe, expect, it } from 'vitest';
import { InterProcessMultiLock } from '@zk-recipes/multi-lock';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { uniqueRoot } from '@zk-recipes/testing';
import { READ_ORDERS, freezePast, readNow, useHandleReadsFixture } from '../../core/test/support/handleReads.js';

const root = uniqueRoot('multi-lock-handle-reads');
const fixture = useHandleReadsFixture();

describe('InterProcessMultiLock handle', () => {
  it.each(READ_ORDERS)('after this process was stopped past its session, read %s: lost (SESSION_LOST) before any timer has run', async (order) => {
    const session = await fixture.connect(2000);
    const dir = `${root}/freeze-${order.replace(' ', '-')}`;
    const handle = await InterProcessMultiLock.fromPaths(session, [`${dir}/a`, `${dir}/b`]).acquire();
    freezePast(session);
    expect(readNow(handle, order), 'the first read after waking').toEqual({ held: false, aborted: true, reason: 'SESSION_LOST' });
    expect(handle.members.map((member) => readNow(member))).toEqual([1, 2].map(() => ({ held: false, aborted: true, reason: 'SESSION_LOST' })));
    await handle.release();
  });

  it("from release() on: not held and its signal aborted (RELEASED), while the first delete's reply is held back and another session takes that member", async () => {
    const [a, b] = [`${root}/release/a`, `${root}/release/b`];
    const { session, proxy } = await fixture.connectThroughProxy();
    const handle = await InterProcessMultiLock.fromPaths(session, [a, b]).acquire();
    const kept = handle.signal;
    proxy.holdReplies();
    const releasing = handle.release(); // b first (last acquired), then a once b's delete is answered
    expect(readNow(handle), 'right after release() was called').toEqual({ held: false, aborted: true, reason: 'RELEASED' });
    expect(kept.aborted).toBe(true);
    const theirs = await new InterProcessMutex(await fixture.connect(), b).acquire({ timeoutMs: 10_000 });
    expect(readNow(handle), 'while another session holds member b').toEqual({ held: false, aborted: true, reason: 'RELEASED' });
    proxy.heal();
    await releasing;
    await theirs.release();
  });

  it('from session.close() on: not held and its signal aborted (SESSION_CLOSED)', async () => {
    const session = await fixture.connect();
    const handle = await InterProcessMultiLock.fromPaths(session, [`${root}/close/a`, `${root}/close/b`]).acquire();
    const closing = session.close();
    expect(readNow(handle), 'right after close() was called').toEqual({ held: false, aborted: true, reason: 'SESSION_CLOSED' });
    await closing;
    await handle.release();
  });
});
