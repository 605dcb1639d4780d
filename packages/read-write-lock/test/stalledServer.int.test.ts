/**
 * Deadlines that hold while the server stalls (docs/architecture.md, "Deadlines"): with the
 * server stopped (SIGSTOP), every acquisition of the write lock and the read lock settles by its
 * deadline or abort plus the documented slack, none is granted, and no node is left once the
 * server resumes.
 */
import { describe, expect, it } from 'vitest';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { pollUntil, uniqueRoot } from '@zk-recipes/testing';
import { deadlinesUnderStall, JITTER_MS, SETTLE_SLACK_MS, type StallRecipe } from '../../core/test/support/stalledServer.js';

const root = uniqueRoot('rw-stalled-server');
/** Writers everywhere, except that the waiter queued behind the holder is a reader behind a writer. */
const readWrite: StallRecipe = {
  acquire: (session, path, options) => {
    const lock = new InterProcessReadWriteLock(session, path);
    const queuedReader = path.endsWith('/held') && options.timeoutMs !== undefined;
    return (queuedReader ? lock.readLock() : lock.writeLock()).acquire(options);
  },
  queueDir: (path) => path,
};

describe.each([
  { sessionTimeoutMs: 4000, stallMs: 6000 },
  { sessionTimeoutMs: 15_000, stallMs: 12_000 },
])('InterProcessReadWriteLock while the server stalls, $sessionTimeoutMs ms sessions, $stallMs ms stall', ({ sessionTimeoutMs, stallMs }) => {
  it('settles every acquisition within its deadline or abort plus the slack, grants none, and leaves no node', async () => {
    const scenario = await deadlinesUnderStall(readWrite, { sessionTimeoutMs, stallMs, root: `${root}/${sessionTimeoutMs}` });
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
