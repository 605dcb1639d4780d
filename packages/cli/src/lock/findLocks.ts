import type { ZkSession } from '@zk-recipes/core';
import { joinPath, sortedChildren } from '@zk-recipes/core/recipe-kit';
import { CliError } from './CliError.js';
import type { LockSnapshot } from './LockSnapshot.js';
import { childrenOrNull } from './nodeReads.js';
import { readLockSnapshot } from './readLockSnapshot.js';
import { isCuratorSemaphore } from './curatorSemaphore.js';
import { familyOf } from './recipeOfKinds.js';

/** Requests in flight at once while walking a tree: pipelined, without flooding the server. */
const CONCURRENT_READS = 32;

/**
 * Every lock under `root` (`root` included), found by walking the tree: a directory is a lock when
 * its children are a recipe's queue nodes (or a Curator semaphore's `leases`/`locks`). The walk
 * does not descend into a lock. An idle lock whose directory is empty is not found: nothing tells
 * it from any other empty node. Children named like queue nodes of which none is ephemeral are
 * no contenders (a lock set's key directories: the key `lock-0000000001`): the walk goes on into them.
 * @throws CliError `NO_NODE` when nothing is at `root`.
 */
export async function findLocks(session: ZkSession, root: string): Promise<LockSnapshot[]> {
  const found: LockSnapshot[] = [];
  const pending: string[] = [root];
  let first = true;
  while (pending.length > 0) {
    const level = pending.splice(0, pending.length);
    const results = await inBatches(level, CONCURRENT_READS, (path) => visit(session, path));
    for (const [i, result] of results.entries()) {
      if (result === null) {
        // A node gone during the walk is simply not there; a missing root is the user's mistake.
        if (first) throw new CliError('NO_NODE', `no node at ${level[i]}`);
        continue;
      }
      if ('lock' in result) {
        if (result.lock !== null) found.push(result.lock);
      } else {
        pending.push(...result.descend);
      }
    }
    first = false;
  }
  return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

type Visit = { lock: LockSnapshot | null } | { descend: string[] } | null;

async function visit(session: ZkSession, path: string): Promise<Visit> {
  const children = await childrenOrNull(session, path, undefined);
  if (children === null) return null;
  const queue = sortedChildren(children);
  if (familyOf(queue) !== null || isCuratorSemaphore(children, queue)) {
    try {
      const lock = await readLockSnapshot(session, path);
      if (lock.contenders.length === 0) return { lock: null };
      if (lock.contenders.some((contender) => contender.sessionId !== null)) return { lock };
    } catch (err) {
      // Gone since the listing, or `leases`/`locks` that are no Curator semaphore's: walk on.
      if (!(err instanceof CliError)) throw err;
    }
  }
  return { descend: children.map((child) => joinPath(path, child)) };
}

async function inBatches<T, R>(items: readonly T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}
