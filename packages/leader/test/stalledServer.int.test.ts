/**
 * A selector's wait while the server stalls (docs/architecture.md, "Deadlines"): with the server
 * stopped (SIGSTOP), every `LeaderSelector.run` waiting for leadership with a deadline, a try
 * (`timeoutMs: 0`) or an abort settles by it plus the documented slack (50 ms), none is elected,
 * and no node is left once the server resumes.
 */
import { LeaderSelector } from '@zk-recipes/leader';
import { uniqueRoot } from '@zk-recipes/testing';
import { describeUnderStall, type StallRecipe } from '../../core/test/support/stalledServer.js';

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

describeUnderStall('LeaderSelector.run', selector, root, { timeoutCode: 'LEADERSHIP_TIMEOUT' });
