/**
 * Deadlines that hold while the server stalls (docs/architecture.md, "Deadlines"): with the
 * server stopped (SIGSTOP), every InterProcessMutex acquisition settles by its deadline or abort
 * plus the documented slack (50 ms), none is granted, and no node is left once the server resumes.
 */
import { describe, it } from 'vitest';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { pollUntil, uniqueRoot } from '@zk-recipes/testing';
import { deadlinesUnderStall, expectEachSettledInTime, type StallRecipe } from '../../core/test/support/stalledServer.js';

const root = uniqueRoot('mutex-stalled-server');
const mutex: StallRecipe = {
  acquire: (session, path, options) => new InterProcessMutex(session, path).acquire(options),
  queueDir: (path) => path,
};

describe.each([
  { sessionTimeoutMs: 4000, stallMs: 6000 },
  { sessionTimeoutMs: 15_000, stallMs: 12_000 },
])('InterProcessMutex while the server stalls, $sessionTimeoutMs ms sessions, $stallMs ms stall', ({ sessionTimeoutMs, stallMs }) => {
  it('settles every acquisition within its deadline or abort plus the slack (50 ms), grants none, and leaves no node', async () => {
    const scenario = await deadlinesUnderStall(mutex, { sessionTimeoutMs, stallMs, root: `${root}/${sessionTimeoutMs}` });
    try {
      expectEachSettledInTime(scenario.outcomes);
      // A create the stalled server applies when it resumes is swept: now, or a session timeout later.
      await pollUntil(async () => (await scenario.leftover()) === 0, sessionTimeoutMs + 10_000, 'no node left');
    } finally {
      await scenario.end();
    }
  });
});
