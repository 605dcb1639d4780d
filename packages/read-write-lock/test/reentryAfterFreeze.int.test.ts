/**
 * A holder frozen past its session must not re-enter the write lock or the read lock: the
 * re-entry passes the grant's checks (docs/architecture.md, "Only events the session can still
 * vouch for"), so it is refused with SESSION_LOST while another process holds the lock.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { uniqueRoot } from '@zk-recipes/testing';
import { brief } from '../../core/test/support/adversary.js';
import { reentryAfterFreeze } from '../../core/test/support/reentryAfterFreeze.js';

const READER = fileURLToPath(new URL('./workers/stalledReader.ts', import.meta.url));
const WRITER = fileURLToPath(new URL('./workers/stalledWriter.ts', import.meta.url));
const root = uniqueRoot('rw-reentry-freeze');

describe('InterProcessReadWriteLock re-entry after a freeze past the session', () => {
  it('the write lock: refused with SESSION_LOST while a reader of another process holds', async () => {
    const dir = `${root}/write`;
    const seen = await reentryAfterFreeze({
      script: READER,
      dir,
      sessionTimeoutMs: 2000,
      hold: async (session, freezeThen) => {
        const lock = new InterProcessReadWriteLock(session, dir).writeLock();
        const handle = await lock.acquire();
        return { handle, reentry: await freezeThen(() => lock.acquire()) };
      },
    });
    expect(seen.otherGrantedWhileFrozen).toBe(true);
    expect(brief(seen.reentry)).toMatchObject({ state: 'rejected', code: 'SESSION_LOST' });
    expect(seen.firstAborted).toBe(true);
  });

  it('the read lock: refused with SESSION_LOST while a writer of another process holds', async () => {
    const dir = `${root}/read`;
    const seen = await reentryAfterFreeze({
      script: WRITER,
      dir,
      sessionTimeoutMs: 2000,
      hold: async (session, freezeThen) => {
        const lock = new InterProcessReadWriteLock(session, dir).readLock();
        const handle = await lock.acquire();
        return { handle, reentry: await freezeThen(() => lock.acquire()) };
      },
    });
    expect(seen.otherGrantedWhileFrozen).toBe(true);
    expect(brief(seen.reentry)).toMatchObject({ state: 'rejected', code: 'SESSION_LOST' });
    expect(seen.firstAborted).toBe(true);
  });
});
