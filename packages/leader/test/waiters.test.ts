/** The waits of `LeaderLatch.leadership()` (pure: no server): resolved, timed out, aborted, rejected. */
import { describe, expect, it } from 'vitest';
import { LeadershipWaiters } from '../src/waiters.js';
import type { Leadership } from '../src/Leadership.js';

const leadership = { id: 'a' } as Leadership;

describe('LeadershipWaiters', () => {
  it('resolves every wait with the next leadership, and then holds none', async () => {
    const waiters = new LeadershipWaiters();
    const waits = [waiters.wait({}, 'w'), waiters.wait({ timeoutMs: 10_000 }, 'w')];
    waiters.resolveAll(leadership);
    expect(await Promise.all(waits)).toEqual([leadership, leadership]);
    // Later leaderships reach nobody: a settled wait is forgotten (and its timer cleared).
    waiters.resolveAll({ id: 'b' } as Leadership);
  });

  it('a deadline: LEADERSHIP_TIMEOUT; a signal: ABORTED with its reason, at once when already aborted', async () => {
    const waiters = new LeadershipWaiters();
    await expect(waiters.wait({ timeoutMs: 5 }, 'leadership')).rejects.toMatchObject({ code: 'LEADERSHIP_TIMEOUT', message: expect.stringMatching(/^leadership: not elected within 5 ms/) });
    const controller = new AbortController();
    const waiting = waiters.wait({ signal: controller.signal }, 'leadership');
    controller.abort('enough');
    await expect(waiting).rejects.toMatchObject({ code: 'ABORTED', cause: 'enough' });
    await expect(waiters.wait({ signal: AbortSignal.abort('before') }, 'leadership')).rejects.toMatchObject({ code: 'ABORTED', cause: 'before' });
  });

  it('rejectAll rejects every wait with the error given (a latch closed or failed)', async () => {
    const waiters = new LeadershipWaiters();
    const error = new Error('closed');
    const waits = [waiters.wait({}, 'w'), waiters.wait({ timeoutMs: 10_000, signal: new AbortController().signal }, 'w')];
    waiters.rejectAll(error);
    for (const wait of waits) await expect(wait).rejects.toBe(error);
  });
});
