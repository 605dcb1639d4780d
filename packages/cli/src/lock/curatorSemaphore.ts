import type { ZkSession } from '@zk-recipes/core';
import { exclusiveRule, joinPath, sortedChildren, type QueueEntry } from '@zk-recipes/core/recipe-kit';
import { MUTEX_KIND } from '@zk-recipes/mutex';
import { curatorCountRule, LEASE_KIND } from '@zk-recipes/semaphore';
import { childrenOrNull } from './nodeReads.js';
import type { ReadLockOptions } from './LockSnapshot.js';
import type { ReadQueue } from './ReadQueue.js';
import { maximumOf } from './semaphoreMaximum.js';

/** Curator's InterProcessSemaphoreV2 keeps its lease nodes and its internal lock in these children of its path. */
export const CURATOR_SEMAPHORE_LEASES = 'leases';
export const CURATOR_SEMAPHORE_LOCKS = 'locks';

/** Whether a directory's children may be a Curator semaphore's: its `leases` or `locks` child, and no queue of its own. */
export function isCuratorSemaphore(children: readonly string[], queue: readonly QueueEntry[]): boolean {
  return queue.length === 0 && (children.includes(CURATOR_SEMAPHORE_LEASES) || children.includes(CURATOR_SEMAPHORE_LOCKS));
}

/**
 * A Curator semaphore's two queues (`leases/`, `locks/`), or `null` when those children hold
 * something else (then `path` is an ordinary directory that happens to have a child so named).
 */
export async function readCuratorSemaphore(session: ZkSession, path: string, options: ReadLockOptions): Promise<{ queues: ReadQueue[]; maxLeases: number | null } | null> {
  const leasesPath = joinPath(path, CURATOR_SEMAPHORE_LEASES);
  const locksPath = joinPath(path, CURATOR_SEMAPHORE_LOCKS);
  const [leaseNames, lockNames] = await Promise.all([childrenOrNull(session, leasesPath, options.watcher), childrenOrNull(session, locksPath, options.watcher)]);
  const leases = sortedChildren(leaseNames ?? []);
  const locks = sortedChildren(lockNames ?? []);
  if (leases.length !== (leaseNames?.length ?? 0) || leases.some((entry) => entry.kind !== LEASE_KIND)) return null;
  if (locks.length !== (lockNames?.length ?? 0) || locks.some((entry) => entry.kind !== MUTEX_KIND)) return null;
  const maxLeases = await maximumOf(session, leasesPath, options);
  const count = maxLeases === null ? null : curatorCountRule(() => maxLeases);
  return {
    maxLeases,
    queues: [
      { directory: leasesPath, relative: `${CURATOR_SEMAPHORE_LEASES}/`, entries: leases, classify: () => ({ kind: 'lease', leases: 1 }), rule: () => count },
      { directory: locksPath, relative: `${CURATOR_SEMAPHORE_LOCKS}/`, entries: locks, classify: () => ({ kind: 'lock', leases: null }), rule: () => exclusiveRule },
    ],
  };
}
