import type { OrderingRule, QueueEntry } from '@zk-recipes/core/recipe-kit';
import type { ContenderKind } from './LockSnapshot.js';

/** One queue of the lock as read: its nodes in order, how to classify them, and the rule that decides them. */
export interface ReadQueue {
  directory: string;
  /** Prefix of `node` (relative to the lock's path): `''`, or `leases/`, `locks/`. */
  relative: string;
  entries: QueueEntry[];
  classify: (entry: QueueEntry) => { kind: ContenderKind; leases: number | null };
  rule: (entry: QueueEntry) => OrderingRule | null;
}
