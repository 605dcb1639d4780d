import { isZkError, type Watcher, type ZkSession } from '@zk-recipes/core';
import type { LockSnapshot } from '../lock/LockSnapshot.js';
import { readLockSnapshot, type ReadLockOptions } from '../lock/readLockSnapshot.js';

/** Failures after which the session comes back by itself: wait for it, then read again. */
const TRANSIENT = ['CONNECTION_LOSS', 'OPERATION_TIMEOUT', 'SESSION_LOST'] as const;

/**
 * Reads the lock at `path` and again after every change, until `signal` aborts: driven by
 * watches (the directory's children, each contender's data, the semaphore's maximum), never by
 * polling. A change seen while a snapshot is being read makes one more read at once, so no change
 * goes unshown; changes during one read come out as one snapshot.
 */
export async function watchLock(
  session: ZkSession,
  path: string,
  options: Omit<ReadLockOptions, 'watcher'>,
  signal: AbortSignal,
  onSnapshot: (snapshot: LockSnapshot) => void,
  onInterruption: (message: string) => void,
): Promise<void> {
  let changed = false;
  let wake: () => void = () => undefined;
  const watcher: Watcher = () => {
    changed = true;
    wake();
  };
  // A new ZooKeeper session after a loss has none of our watches: read again.
  const onState = (state: string) => {
    if (state === 'connected' || state === 'reconnected') watcher({ type: 'childrenChanged', path });
  };
  const onAbort = () => wake();
  session.on('state', onState);
  signal.addEventListener('abort', onAbort);
  try {
    while (!signal.aborted) {
      changed = false;
      try {
        onSnapshot(await readLockSnapshot(session, path, { ...options, watcher }));
      } catch (err) {
        if (!TRANSIENT.some((code) => isZkError(err, code))) throw err;
        onInterruption(`${(err as { code: string }).code}: ${(err as Error).message}; reading again once connected`);
        await session.waitForConnected(signal).catch(() => undefined);
        continue;
      }
      if (changed || signal.aborted) continue;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = () => undefined;
    }
  } finally {
    session.off('state', onState);
    signal.removeEventListener('abort', onAbort);
  }
}
