import type { QueueEntry } from '@zk-recipes/core/recipe-kit';
import { LATCH_KIND } from '@zk-recipes/leader';
import { MUTEX_KIND } from '@zk-recipes/mutex';
import { CURATOR_NAMING, ZK_RECIPES_NAMING, type ReadWriteNaming } from '@zk-recipes/read-write-lock';
import { weightOfKind } from '@zk-recipes/semaphore';

/** Which recipe wrote the nodes of a queue, told by their kinds (the name between GUID and sequence). */
export type QueueFamily =
  | { recipe: 'mutex' }
  | { recipe: 'read-write-lock'; naming: ReadWriteNaming; layout: 'zk-recipes' | 'curator' }
  | { recipe: 'semaphore' }
  | { recipe: 'leader-latch' };

/**
 * The family of a queue, or `null` when no node is of a kind a recipe writes (an empty directory,
 * or another tool's sequential nodes). A read/write kind wins over a lease kind, and a lease kind
 * over `lock-`: each recipe's rule treats kinds it does not know conservatively (as exclusive, or
 * as one lease), so a stray node of another recipe is shown as that rule sees it. `latch-` nodes
 * are a LeaderLatch's election (its rule is the exclusive one); a LeaderSelector's election is a
 * mutex's queue, told apart only by the caller (`inspect --election`).
 */
export function familyOf(queue: readonly QueueEntry[]): QueueFamily | null {
  const kinds = new Set(queue.map((entry) => entry.kind));
  for (const naming of [ZK_RECIPES_NAMING, CURATOR_NAMING]) {
    if (kinds.has(naming.read) || kinds.has(naming.write)) {
      return { recipe: 'read-write-lock', naming, layout: naming === CURATOR_NAMING ? 'curator' : 'zk-recipes' };
    }
  }
  if ([...kinds].some((kind) => weightOfKind(kind) !== null)) return { recipe: 'semaphore' };
  if (kinds.has(LATCH_KIND)) return { recipe: 'leader-latch' };
  if (kinds.has(MUTEX_KIND)) return { recipe: 'mutex' };
  return null;
}

/**
 * Whether `kind` is one that a lock recipe writes, zk-recipes' or Curator's: `lock-` (a mutex, a
 * Curator semaphore's internal lock), `read-`/`write-`, `__READ__`/`__WRIT__`, `lease-` and
 * `lease-w<n>-`. Election members (`n_`), Curator's `latch-` and every other tool's kinds are not.
 */
export function isLockKind(kind: string): boolean {
  if (kind === MUTEX_KIND || weightOfKind(kind) !== null) return true;
  return [ZK_RECIPES_NAMING, CURATOR_NAMING].some((naming) => kind === naming.read || kind === naming.write);
}
