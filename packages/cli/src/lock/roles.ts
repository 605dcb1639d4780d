import type { OrderingRule, QueueEntry } from '@zk-recipes/core/recipe-kit';
import type { Role } from './LockSnapshot.js';

/**
 * Each node's role, decided by the recipe's own ordering rule (the one its contenders run), on
 * the queue up to and including that node: a node's grant never depends on nodes that came after
 * it. The exclusive, read, write and lease-queue rules only look ahead anyway; Curator's semaphore
 * rule counts the whole directory, yet there a later node is the one that waits (its creator holds
 * the internal lock while it does), never a holder ahead of it. `ruleOf` returns `null` when the
 * rule cannot be known (a semaphore without a known maximum): that node's role is `unknown`.
 */
export function rolesOf(queue: readonly QueueEntry[], ruleOf: (entry: QueueEntry) => OrderingRule | null): Role[] {
  return queue.map((entry, index) => {
    const rule = ruleOf(entry);
    if (rule === null) return 'unknown';
    return rule.decide(queue.slice(0, index + 1), index).held ? 'holder' : 'waiter';
  });
}
