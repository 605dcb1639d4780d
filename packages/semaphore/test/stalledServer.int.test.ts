/**
 * Deadlines that hold while the server stalls (docs/architecture.md, "Deadlines"): with the
 * server stopped (SIGSTOP), every InterProcessSemaphore acquisition (both layouts) settles by its
 * deadline or abort plus the documented slack (50 ms), none is granted, and no node is left once the
 * server resumes.
 */
import { describe, it } from 'vitest';
import { InterProcessSemaphore } from '@zk-recipes/semaphore';
import { pollUntil, uniqueRoot } from '@zk-recipes/testing';
import { deadlinesUnderStall, expectEachSettledInTime, type StallRecipe } from '../../core/test/support/stalledServer.js';

const root = uniqueRoot('semaphore-stalled-server');
const semaphore = (layout: 'queue' | 'curator'): StallRecipe => ({
  acquire: (session, path, options) => new InterProcessSemaphore(session, path, { maxLeases: 1, layout }).acquire(options),
  queueDir: (path) => (layout === 'queue' ? path : `${path}/leases`),
  // A `curator`-layout waiter waits for the internal lock, or holds it while its lease waits.
  ...(layout === 'curator' ? { queueDirs: (path: string) => [`${path}/leases`, `${path}/locks`] } : {}),
});

describe.each([
  { layout: 'queue' as const, sessionTimeoutMs: 4000, stallMs: 6000 },
  { layout: 'queue' as const, sessionTimeoutMs: 15_000, stallMs: 12_000 },
  { layout: 'curator' as const, sessionTimeoutMs: 4000, stallMs: 6000 },
])('InterProcessSemaphore ($layout layout) while the server stalls, $sessionTimeoutMs ms sessions, $stallMs ms stall', ({ layout, sessionTimeoutMs, stallMs }) => {
  it('settles every acquisition within its deadline or abort plus the slack (50 ms), grants none, and leaves no node', async () => {
    const scenario = await deadlinesUnderStall(semaphore(layout), { sessionTimeoutMs, stallMs, root: `${root}/${layout}-${sessionTimeoutMs}` });
    try {
      expectEachSettledInTime(scenario.outcomes);
      await pollUntil(async () => (await scenario.leftover()) === 0, sessionTimeoutMs + 10_000, 'no node left');
    } finally {
      await scenario.end();
    }
  });
});
