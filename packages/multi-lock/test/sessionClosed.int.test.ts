/**
 * Issue 13, item 6: `close()` is not a session loss. Acquisitions pending when the session is
 * closed, and every acquisition started afterwards, reject with SESSION_CLOSED — for every
 * recipe: mutex, read/write lock, semaphore (both layouts), multi-lock. A holder's signal aborts
 * with the same reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZkSession, type LockHandle } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { InterProcessSemaphore } from '@zk-recipes/semaphore';
import { InterProcessMultiLock } from '@zk-recipes/multi-lock';
import { testConnectString, uniqueRoot, untilChildCount } from '@zk-recipes/testing';

const root = uniqueRoot('session-closed');
let other: ZkSession;

beforeAll(async () => {
  other = await ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs: 6000 });
});
afterAll(async () => {
  await other?.close();
});

/** Something that is acquired and released; each recipe below builds one on a given session. */
interface Recipe {
  acquire(): Promise<{ release(): Promise<void>; signal?: AbortSignal }>;
}

interface Case {
  name: string;
  /** The recipe on `session` at `path`. */
  make(session: ZkSession, path: string): Recipe;
  /** What the other session holds to make ours wait (default: `make(other, path)`). */
  block?(other: ZkSession, path: string): Recipe;
  /** The directory whose children are the queue nodes (to know when a waiter is queued). */
  queueDir(path: string): string;
  /** Children of queueDir once the blocker holds and our waiter is queued. */
  queuedCount: number;
}

const cases: Case[] = [
  { name: 'mutex', make: (s, p) => new InterProcessMutex(s, p), queueDir: (p) => p, queuedCount: 2 },
  { name: 'read/write lock: a writer', make: (s, p) => new InterProcessReadWriteLock(s, p).writeLock(), queueDir: (p) => p, queuedCount: 2 },
  {
    name: 'read/write lock: a reader behind a writer',
    make: (s, p) => (s === other ? new InterProcessReadWriteLock(s, p).writeLock() : new InterProcessReadWriteLock(s, p).readLock()),
    queueDir: (p) => p,
    queuedCount: 2,
  },
  {
    name: 'semaphore (queue layout)',
    make: (s, p) => new InterProcessSemaphore(s, p, { maxLeases: 1 }),
    queueDir: (p) => p,
    queuedCount: 2,
  },
  {
    name: 'semaphore (curator layout)',
    make: (s, p) => new InterProcessSemaphore(s, p, { maxLeases: 1, layout: 'curator' }),
    queueDir: (p) => `${p}/leases`,
    queuedCount: 2,
  },
  {
    name: 'multi-lock',
    make: (s, p) => InterProcessMultiLock.fromPaths(s, [`${p}/a`, `${p}/b`]),
    // Ours takes a, then waits for b.
    block: (s, p) => new InterProcessMutex(s, `${p}/b`),
    queueDir: (p) => `${p}/b`,
    queuedCount: 2,
  },
];

describe.each(cases)('$name', (c) => {
  it('acquisitions pending at close() reject with SESSION_CLOSED; so does every acquire() after it; a holder is told the same', async () => {
    const path = `${root}/${c.name.replace(/[^a-z]+/g, '-')}`;
    const session = await ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs: 6000 });
    let blocker: { release(): Promise<void> } | undefined;
    try {
      // Another session holds it; ours waits.
      blocker = await (c.block ?? c.make)(other, path).acquire();
      const pending = c.make(session, path).acquire().then(
        () => 'acquired',
        (e: unknown) => e,
      );
      await untilChildCount(other, c.queueDir(path), c.queuedCount);
      // Ours holds a lock elsewhere too: its handle learns of the close.
      const held = (await c.make(session, `${path}-held`).acquire()) as LockHandle;

      const closing = session.close();
      expect(held.signal.aborted).toBe(true);
      expect(held.signal.reason).toMatchObject({ code: 'SESSION_CLOSED' });
      expect(await pending).toMatchObject({ code: 'SESSION_CLOSED' });
      await closing;
      // Our queue node went with the session; the blocker's stays.
      await untilChildCount(other, c.queueDir(path), 1);

      expect(await c.make(session, path).acquire().catch((e: unknown) => e)).toMatchObject({ code: 'SESSION_CLOSED' });
      expect(await c.make(session, `${path}-after`).acquire().catch((e: unknown) => e)).toMatchObject({ code: 'SESSION_CLOSED' });
      await held.release(); // harmless after the close
    } finally {
      await blocker?.release();
      await session.close();
    }
  });
});
