/**
 * The contender `npm run test:nemesis` starts (see scripts/nemesis.ts): loops acquire → hold →
 * release with its own session on one recipe until told to stop, printing its holds.
 * Usage: nemesis-worker.ts <connectString> <lockPath> <sessionTimeoutMs> <chatterPath> <recipe>
 *   recipe: mutex | semaphore:<maxLeases> | rwlock (a reader or a writer each time, 3:1; half the
 *   writers downgrade: take the read lock, release the write lock, hold the read lock) | leader
 *   (a LeaderLatch: each acquisition waits for its leadership, each release gives it up by closing
 *   the latch; a leadership lost by itself leaves the latch in the election, rejoined on its own)
 */
import { AsyncResource } from 'node:async_hooks';
import { ZkSession, type LockHandle } from '@zk-recipes/core';
import { LeaderLatch } from '@zk-recipes/leader';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { InterProcessSemaphore } from '@zk-recipes/semaphore';
import { Prng, runNemesisWorker, workerName, type NemesisHandle } from '@zk-recipes/testing';

const [connectString, lockPath, sessionTimeoutArg, chatterPath, recipe = 'mutex'] = process.argv.slice(2);
if (connectString === undefined || lockPath === undefined) {
  throw new Error('usage: nemesis-worker.ts <connectString> <lockPath> <sessionTimeoutMs> <chatterPath> <mutex|semaphore:<k>|rwlock|leader>');
}
const sessionTimeoutMs = Number(sessionTimeoutArg ?? 3000);

const session = await ZkSession.connect({ connectString, sessionTimeoutMs, connectionTimeoutMs: 30_000 });
// The loop picks each acquisition's deadline (runNemesisWorker's timeoutMs and shortDeadlines).
let acquire: (signal: AbortSignal, timeoutMs: number) => Promise<NemesisHandle>;
if (recipe === 'mutex') {
  const mutex = new InterProcessMutex(session, lockPath);
  acquire = (signal, timeoutMs) => mutex.acquire({ signal, timeoutMs });
} else if (recipe.startsWith('semaphore:')) {
  const semaphore = new InterProcessSemaphore(session, lockPath, { maxLeases: Number(recipe.slice('semaphore:'.length)) });
  acquire = (signal, timeoutMs) => semaphore.acquire({ signal, timeoutMs });
} else if (recipe === 'rwlock') {
  const rw = new InterProcessReadWriteLock(session, lockPath);
  const prng = new Prng([...workerName()].reduce((h, c) => (h * 33 + c.charCodeAt(0)) | 0, 11));
  const shared = (handle: LockHandle): NemesisHandle => ({ path: handle.path, signal: handle.signal, grantedAt: handle.grantedAt, release: () => handle.release(), shared: true });
  acquire = async (signal, timeoutMs) => {
    if (!prng.chance(0.25)) return shared(await rw.readLock().acquire({ signal, timeoutMs }));
    const write = await rw.writeLock().acquire({ signal, timeoutMs });
    if (!prng.chance(0.5)) return write;
    // Half the writers downgrade. Bound to this async context, the write lock's owner: there the
    // read lock is granted at once, at the write lock's place.
    const downgrade = AsyncResource.bind(async (): Promise<NemesisHandle> => shared(await rw.readLock().acquire({ timeoutMs })));
    return { path: write.path, signal: write.signal, grantedAt: write.grantedAt, release: () => write.release(), downgrade };
  };
} else if (recipe === 'leader') {
  // One latch in the election at a time. A hold is one leadership, from its grant to the earlier of
  // its signal aborting and the release; the release leaves the election (close), unless the
  // leadership was lost by itself: then the latch has joined again already and the next
  // acquisition waits for its next term. A wait that ends without leadership leaves too, so that
  // no leadership goes unrecorded.
  let latch: LeaderLatch | undefined;
  const leave = (left: LeaderLatch): Promise<void> => {
    if (latch === left) latch = undefined;
    return left.close();
  };
  acquire = async (signal, timeoutMs) => {
    const current = (latch ??= new LeaderLatch(session, lockPath));
    current.start();
    try {
      const leadership = await current.leadership({ signal, timeoutMs });
      return {
        path: leadership.node,
        signal: leadership.signal,
        grantedAt: leadership.grantedAt,
        release: () => (leadership.signal.aborted && current.state === 'started' ? Promise.resolve() : leave(current)),
      };
    } catch (err) {
      // Left in the background: the wait settles by its deadline; close() aborts the latch's wait at once.
      void leave(current).catch(() => undefined);
      throw err;
    }
  };
} else {
  throw new Error(`nemesis-worker: unknown recipe ${recipe}`);
}
// A leader leads for long: a quarter of its terms last 0.5-2 session timeouts (a lock's 3%), so that
// faults strike leaders that still lead (unless ZKR_NEMESIS_LONG_HOLDS sets the share).
const longHolds = process.env['ZKR_NEMESIS_LONG_HOLDS'] === undefined && recipe === 'leader' ? { longHold: { chance: 0.25, sessions: [0.5, 2] as const } } : {};
await runNemesisWorker({ session, acquire, ...longHolds, ...(chatterPath ? { chatterPath } : {}) });
