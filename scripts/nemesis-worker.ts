/**
 * The contender `npm run test:nemesis` starts (see scripts/nemesis.ts): loops acquire → hold →
 * release with its own session on one recipe until told to stop, printing its holds.
 * Usage: nemesis-worker.ts <connectString> <lockPath> <sessionTimeoutMs> <chatterPath> <recipe>
 *   recipe: mutex | semaphore:<maxLeases> | rwlock (a reader or a writer each time, 3:1)
 */
import { ZkSession } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { InterProcessSemaphore } from '@zk-recipes/semaphore';
import { Prng, runNemesisWorker, workerName, type NemesisHandle } from '@zk-recipes/testing';

const [connectString, lockPath, sessionTimeoutArg, chatterPath, recipe = 'mutex'] = process.argv.slice(2);
if (connectString === undefined || lockPath === undefined) {
  throw new Error('usage: nemesis-worker.ts <connectString> <lockPath> <sessionTimeoutMs> <chatterPath> <mutex|semaphore:<k>|rwlock>');
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
  acquire = async (signal, timeoutMs) => {
    if (prng.chance(0.25)) return rw.writeLock().acquire({ signal, timeoutMs });
    const handle = await rw.readLock().acquire({ signal, timeoutMs });
    return { path: handle.path, signal: handle.signal, grantedAt: handle.grantedAt, release: () => handle.release(), shared: true };
  };
} else {
  throw new Error(`nemesis-worker: unknown recipe ${recipe}`);
}
await runNemesisWorker({ session, acquire, ...(chatterPath ? { chatterPath } : {}) });
