import { sortedChildren, type QueueEntry } from '../nodes/index.js';

/** A listing sorted by sequence, with each name's index. */
export interface SortedQueue {
  queue: QueueEntry[];
  indexOf: Map<string, number>;
}

/**
 * Waiters enqueued together share one listing (one array object); sorting it once for all of them
 * keeps N local waiters at O(N log N) work instead of O(N² log N).
 */
const cache = new WeakMap<readonly string[], SortedQueue>();

export function sortedQueueOf(children: readonly string[]): SortedQueue {
  let sorted = cache.get(children);
  if (sorted === undefined) {
    const queue = sortedChildren([...children]);
    sorted = { queue, indexOf: new Map(queue.map((entry, index) => [entry.name, index])) };
    cache.set(children, sorted);
  }
  return sorted;
}
