/**
 * Deadlines that hold while the server stalls (docs/architecture.md, "Deadlines"): with the
 * server stopped (SIGSTOP), every InterProcessSemaphore acquisition (both layouts) settles by its
 * deadline or abort plus the documented slack, none is granted, and no node is left once the
 * server resumes.
 */
import { describe, expect, it } from 'vitest';
import { InterProcessSemaphore } from '@zk-recipes/semaphore';
import { pollUntil, uniqueRoot } from '@zk-recipes/testing';
import { deadlinesUnderStall, JITTER_MS, SETTLE_SLACK_MS, type StallRecipe } from '../../core/test/support/stalledServer.js';

const root = uniqueRoot('semaphore-stalled-server');
const semaphore = (layout: 'queue' | 'curator'): StallRecipe => ({
  acquire: (session, path, options) => new InterProcessSemaphore(session, path, { maxLeases: 1, layout }).acquire(options),
  queueDir: (path) => (layout === 'queue' ? path : `${path}/leases`),
});

describe.each([
  { layout: 'queue' as const, sessionTimeoutMs: 4000, stallMs: 6000 },
  { layout: 'queue' as const, sessionTimeoutMs: 15_000, stallMs: 12_000 },
  { layout: 'curator' as const, sessionTimeoutMs: 4000, stallMs: 6000 },
])('InterProcessSemaphore ($layout layout) while the server stalls, $sessionTimeoutMs ms sessions, $stallMs ms stall', ({ layout, sessionTimeoutMs, stallMs }) => {
  it('settles every acquisition within its deadline or abort plus the slack, grants none, and leaves no node', async () => {
    const scenario = await deadlinesUnderStall(semaphore(layout), { sessionTimeoutMs, stallMs, root: `${root}/${layout}-${sessionTimeoutMs}` });
    try {
      for (const outcome of scenario.outcomes) {
        expect(outcome, JSON.stringify(outcome)).toMatchObject({ granted: false, code: outcome.kind === 'abort' ? 'ABORTED' : 'LOCK_TIMEOUT' });
        expect(outcome.settledMs, JSON.stringify(outcome)).toBeLessThanOrEqual(outcome.dueMs + SETTLE_SLACK_MS + JITTER_MS);
      }
      await pollUntil(async () => (await scenario.leftover()) === 0, sessionTimeoutMs + 10_000, 'no node left');
    } finally {
      await scenario.end();
    }
  });
});
