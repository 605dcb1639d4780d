/**
 * A selector's wait while the server stalls (docs/architecture.md, "Deadlines"): with the server
 * stopped (SIGSTOP), every `LeaderSelector.run` waiting for leadership with a deadline, a try
 * (`timeoutMs: 0`) or an abort settles by it plus the documented slack (50 ms), none is elected,
 * and no node is left once the server resumes.
 */
import { describe, it } from 'vitest';
import { LeaderSelector } from '@zk-recipes/leader';
import { pollUntil, uniqueRoot } from '@zk-recipes/testing';
import { deadlinesUnderStall, expectEachSettledInTime, type StallRecipe } from '../../core/test/support/stalledServer.js';

const root = uniqueRoot('leader-stalled-server');
/** Elected means `run`'s function runs; released, it returns and the selector closes. */
const selector: StallRecipe = {
  acquire: (session, path, options) => {
    const member = new LeaderSelector(session, path);
    return new Promise((resolve, reject) => {
      const leading = (): Promise<void> =>
        new Promise<void>((stepDown) =>
          resolve({
            release: async () => {
              stepDown();
              await member.close();
            },
          }),
        );
      member.run(leading, options).catch(reject);
    });
  },
  queueDir: (path) => path,
};

describe.each([
  { sessionTimeoutMs: 4000, stallMs: 6000 },
  { sessionTimeoutMs: 15_000, stallMs: 12_000 },
])('LeaderSelector while the server stalls, $sessionTimeoutMs ms sessions, $stallMs ms stall', ({ sessionTimeoutMs, stallMs }) => {
  it('settles every wait for leadership within its deadline or abort plus the slack (50 ms), elects none, and leaves no node', async () => {
    const scenario = await deadlinesUnderStall(selector, { sessionTimeoutMs, stallMs, root: `${root}/${sessionTimeoutMs}` });
    try {
      expectEachSettledInTime(scenario.outcomes, 'LEADERSHIP_TIMEOUT');
      await pollUntil(async () => (await scenario.leftover()) === 0, sessionTimeoutMs + 10_000, 'no node left');
    } finally {
      await scenario.end();
    }
  });
});
