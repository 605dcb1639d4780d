/**
 * What a lease says when it is read (docs/semaphore.md, "What `held` and `signal` promise"):
 * still ours, checked now. After this process was stopped past its session, the first read, before
 * any timer of ours has run, says lost; from `release()` on, and from `session.close()` on, not
 * held, whatever the server has answered yet. The leases of one node end one by one.
 */
import { describe, expect, it } from 'vitest';
import { InterProcessSemaphore } from '@zk-recipes/semaphore';
import { uniqueRoot } from '@zk-recipes/testing';
import { READ_ORDERS, freezePast, readNow, useHandleReadsFixture } from '../../core/test/support/handleReads.js';

const root = uniqueRoot('semaphore-handle-reads');
const fixture = useHandleReadsFixture();

describe.each(['queue', 'curator'] as const)('a lease (%s layout)', (layout) => {
  it.each(READ_ORDERS)('after this process was stopped past its session, read %s: lost (SESSION_LOST) before any timer has run', async (order) => {
    const session = await fixture.connect(2000);
    const lease = await new InterProcessSemaphore(session, `${root}/${layout}/freeze-${order.replace(' ', '-')}`, { maxLeases: 2, layout }).acquire();
    freezePast(session);
    expect(readNow(lease, order), 'the first read after waking').toEqual({ held: false, aborted: true, reason: 'SESSION_LOST' });
    await lease.release();
  });

  it("from release() on: not held and its signal aborted (RELEASED), while the delete's reply is held back and another session takes the lease", async () => {
    const path = `${root}/${layout}/release`;
    const { session, proxy } = await fixture.connectThroughProxy();
    const lease = await new InterProcessSemaphore(session, path, { maxLeases: 1, layout }).acquire();
    const kept = lease.signal;
    proxy.holdReplies();
    const releasing = lease.release();
    expect(readNow(lease), 'right after release() was called').toEqual({ held: false, aborted: true, reason: 'RELEASED' });
    expect(kept.aborted).toBe(true);
    const theirs = await new InterProcessSemaphore(await fixture.connect(), path, { maxLeases: 1, layout }).acquire({ timeoutMs: 10_000 });
    expect(readNow(lease), 'while another session holds the only lease').toEqual({ held: false, aborted: true, reason: 'RELEASED' });
    proxy.heal();
    await releasing;
    await theirs.release();
  });

  it('from session.close() on: not held and its signal aborted (SESSION_CLOSED)', async () => {
    const session = await fixture.connect();
    const lease = await new InterProcessSemaphore(session, `${root}/${layout}/close`, { maxLeases: 2, layout }).acquire();
    const closing = session.close();
    expect(readNow(lease), 'right after close() was called').toEqual({ held: false, aborted: true, reason: 'SESSION_CLOSED' });
    await closing;
    await lease.release();
  });

  it('the leases of one acquireMany end one by one: a released one says so, the other still holds', async () => {
    const session = await fixture.connect();
    const leases = await new InterProcessSemaphore(session, `${root}/${layout}/many`, { maxLeases: 3, layout }).acquireMany(2);
    const [first, second] = [leases[0]!, leases[1]!];
    const secondSignal = second.signal;
    await first.release();
    expect(readNow(first)).toEqual({ held: false, aborted: true, reason: 'RELEASED' });
    expect(readNow(second)).toEqual({ held: true, aborted: false, reason: undefined });
    expect(secondSignal.aborted).toBe(false);
    expect(await session.exists(second.path)).not.toBeNull();
    await leases.release(); // the one left
    expect(readNow(second)).toEqual({ held: false, aborted: true, reason: 'RELEASED' });
    expect(await session.exists(second.path)).toBeNull();
  });
});
