/**
 * What a mutex handle says when it is read (docs/mutex.md, "What `held` and `signal` promise"):
 * still ours, checked now. After this process was stopped past its session, the first read, before
 * any timer of ours has run, says lost; from `release()` on, and from `session.close()` on, it says
 * not held, whatever the server has answered yet.
 */
import { describe, expect, it } from 'vitest';
import { InterProcessMutex, InterProcessSemaphoreMutex } from '@zk-recipes/mutex';
import { uniqueRoot } from '@zk-recipes/testing';
import { READ_ORDERS, freezePast, readNow, useHandleReadsFixture } from '../../core/test/support/handleReads.js';

const root = uniqueRoot('mutex-handle-reads');
const fixture = useHandleReadsFixture();

const LOCKS = [
  ['InterProcessMutex', InterProcessMutex],
  ['InterProcessSemaphoreMutex', InterProcessSemaphoreMutex],
] as const;

describe.each(LOCKS)('%s handle', (name, Lock) => {
  it.each(READ_ORDERS)('after this process was stopped past its session, read %s: lost (SESSION_LOST) before any timer has run', async (order) => {
    const session = await fixture.connect(2000);
    const handle = await new Lock(session, `${root}/${name}/freeze-${order.replace(' ', '-')}`).acquire();
    expect(readNow(handle, order)).toEqual({ held: true, aborted: false, reason: undefined });
    freezePast(session);
    expect(readNow(handle, order), 'the first read after waking').toEqual({ held: false, aborted: true, reason: 'SESSION_LOST' });
    await handle.release(); // a lost handle still releases (nothing is deleted), without an error
  });

  it("from release() on: not held and its signal aborted (RELEASED), while the delete's reply is held back and another session takes the lock", async () => {
    const dir = `${root}/${name}/release`;
    const { session, proxy } = await fixture.connectThroughProxy();
    const handle = await new Lock(session, dir).acquire();
    const kept = handle.signal; // the signal a holder kept from before
    proxy.holdReplies(); // the delete reaches the server; its answer does not come back
    const releasing = handle.release();
    expect(readNow(handle), 'right after release() was called').toEqual({ held: false, aborted: true, reason: 'RELEASED' });
    expect(kept.aborted).toBe(true);
    const theirs = await new Lock(await fixture.connect(), dir).acquire({ timeoutMs: 10_000 });
    expect(readNow(handle), 'while another session holds the lock').toEqual({ held: false, aborted: true, reason: 'RELEASED' });
    proxy.heal();
    await releasing;
    await theirs.release();
  });

  it('from session.close() on: not held and its signal aborted (SESSION_CLOSED)', async () => {
    const session = await fixture.connect();
    const handle = await new Lock(session, `${root}/${name}/close`).acquire();
    const closing = session.close();
    expect(readNow(handle), 'right after close() was called').toEqual({ held: false, aborted: true, reason: 'SESSION_CLOSED' });
    await closing;
    expect(readNow(handle)).toEqual({ held: false, aborted: true, reason: 'SESSION_CLOSED' });
    await handle.release();
  });
});

describe('InterProcessMutex re-entered (depth 2)', () => {
  it('each handle ends at its own release: the inner one released first, the outer still holds and its signal lives', async () => {
    const mutex = new InterProcessMutex(await fixture.connect(), `${root}/reentrant`);
    const outer = await mutex.acquire();
    const inner = await mutex.acquire();
    const [outerSignal, innerSignal] = [outer.signal, inner.signal];
    await inner.release();
    expect(readNow(inner)).toEqual({ held: false, aborted: true, reason: 'RELEASED' });
    expect(readNow(outer)).toEqual({ held: true, aborted: false, reason: undefined });
    expect([outerSignal.aborted, innerSignal.aborted]).toEqual([false, true]);
    expect(mutex.isOwnedByCurrentContext()).toBe(true);
    await outer.release();
    expect(readNow(outer)).toEqual({ held: false, aborted: true, reason: 'RELEASED' });
    expect(mutex.isAcquiredInThisProcess()).toBe(false);
  });

  it('the outer one released first: the inner one still holds the node, then releases it', async () => {
    const session = await fixture.connect();
    const mutex = new InterProcessMutex(session, `${root}/reentrant-outer-first`);
    const outer = await mutex.acquire();
    const inner = await mutex.acquire();
    await outer.release();
    expect(readNow(outer)).toEqual({ held: false, aborted: true, reason: 'RELEASED' });
    expect(readNow(inner)).toEqual({ held: true, aborted: false, reason: undefined });
    expect(await session.exists(inner.path)).not.toBeNull();
    await inner.release();
    expect(await session.exists(inner.path)).toBeNull();
  });
});
