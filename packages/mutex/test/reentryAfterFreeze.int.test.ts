/**
 * A holder frozen past its session must not re-enter: the re-entry passes the grant's checks
 * (docs/architecture.md, "Only events the session can still vouch for"), so it is refused with
 * SESSION_LOST while another process holds the lock.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { uniqueRoot } from '@zk-recipes/testing';
import { brief } from '../../core/test/support/adversary.js';
import { reentryAfterFreeze } from '../../core/test/support/reentryAfterFreeze.js';

const OTHER = fileURLToPath(new URL('./workers/stalledWaiter.ts', import.meta.url));
const root = uniqueRoot('mutex-reentry-freeze');

describe('InterProcessMutex re-entry after a freeze past the session', () => {
  it('is refused with SESSION_LOST (and the first handle aborted) while another process holds the lock', async () => {
    const dir = `${root}/lock`;
    const seen = await reentryAfterFreeze({
      script: OTHER,
      dir,
      sessionTimeoutMs: 2000,
      hold: async (session, freezeThen) => {
        const mutex = new InterProcessMutex(session, dir);
        const handle = await mutex.acquire();
        return { handle, reentry: await freezeThen(() => mutex.acquire()) };
      },
    });
    expect(seen.otherGrantedWhileFrozen).toBe(true);
    expect(brief(seen.reentry)).toMatchObject({ state: 'rejected', code: 'SESSION_LOST' });
    expect(seen.firstAborted).toBe(true);
  });
});
