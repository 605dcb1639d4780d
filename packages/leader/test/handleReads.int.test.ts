/**
 * What a leadership says when it is read (docs/leader.md, "What `held` and `signal` promise"):
 * still leader, checked now, the same meaning as a lock handle's. After this process was stopped
 * past its session, the first read, before any timer of ours has run, says lost, whichever of
 * `signal` and `held` is read first; from `session.close()` on, not held. A selector's run settles
 * once its function returned, without waiting for its node's delete to be answered.
 */
import { describe, expect, it } from 'vitest';
import { LeaderLatch, LeaderSelector, type Leadership } from '@zk-recipes/leader';
import { uniqueRoot } from '@zk-recipes/testing';
import { within } from '../../core/test/support/adversary.js';
import { READ_ORDERS, freezePast, readNow, suspension, useHandleReadsFixture } from '../../core/test/support/handleReads.js';

const root = uniqueRoot('leader-handle-reads');
const fixture = useHandleReadsFixture();

describe('a LeaderLatch leadership', () => {
  it.each(READ_ORDERS)('after this process was stopped past its session, read %s: lost (SESSION_LOST) before any timer has run', async (order) => {
    const session = await fixture.connect(2000);
    const latch = new LeaderLatch(session, `${root}/latch-freeze-${order.replace(' ', '-')}`);
    latch.start();
    const leadership = await latch.leadership();
    freezePast(session);
    expect(readNow(leadership, order), 'the first read after waking').toEqual({ held: false, aborted: true, reason: 'SESSION_LOST' });
    await latch.close();
  });

  it('from session.close() on: not held and its signal aborted (SESSION_CLOSED)', async () => {
    const session = await fixture.connect();
    const latch = new LeaderLatch(session, `${root}/latch-close`);
    latch.start();
    const leadership = await latch.leadership();
    const closing = session.close();
    expect(readNow(leadership), 'right after close() was called').toEqual({ held: false, aborted: true, reason: 'SESSION_CLOSED' });
    await closing;
    await latch.close();
  });
});

describe("a LeaderSelector's leadership", () => {
  it.each(READ_ORDERS)('after this process was stopped past its session, read %s inside the function: lost (SESSION_LOST) before any timer has run', async (order) => {
    const session = await fixture.connect(2000);
    const selector = new LeaderSelector(session, `${root}/selector-freeze-${order.replace(' ', '-')}`);
    let read: ReturnType<typeof readNow> | undefined;
    await selector.run((leadership) => {
      freezePast(session);
      read = readNow(leadership, order);
    });
    expect(read, 'the first read after waking').toEqual({ held: false, aborted: true, reason: 'SESSION_LOST' });
    await selector.close();
  });

  it("its run settles once the function returned, while the delete's reply is held back; another participant is elected meanwhile, and close() waits for the delete", async () => {
    const path = `${root}/selector-release`;
    const { session, proxy } = await fixture.connectThroughProxy();
    const selector = new LeaderSelector(session, path, { id: 'first' });
    const suspended = suspension(session); // the watchdog drops a connection that answers nothing
    let term: Leadership | undefined;
    const run = selector.run((leadership) => {
      term = leadership;
      proxy.holdReplies(); // the delete will reach the server; its answer will not come back
    });
    // Ordered by events, not by a timer: before this fix the run waited for the delete's answer,
    // which came only after the watchdog had dropped the connection and a new one asked again.
    const first = await Promise.race([run.then(() => 'run settled' as const), suspended]);
    expect(first, "the run must settle before the session gives up on the held replies").toBe('run settled');
    expect(readNow(term!)).toEqual({ held: false, aborted: true, reason: 'ABORTED' });
    const next = new LeaderSelector(await fixture.connect(), path, { id: 'next' });
    let nextLed = false;
    await within(next.run(() => void (nextLed = true)), 10_000, 'the next participant to be elected');
    expect(nextLed).toBe(true);
    proxy.heal();
    await selector.close();
    expect(await session.exists(term!.node)).toBeNull();
    await next.close();
  });
});
