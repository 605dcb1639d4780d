import type { ZkSession } from '../session/ZkSession.js';

/** What this process knows about one of its own queue nodes. */
export interface LocalSeatState {
  /** Became true when the node was granted the lock; stays true after it is released. */
  held: boolean;
}

/**
 * The queue nodes this process created, per session, by full path. A waiter whose predecessor is
 * one of them can tell, when that node goes, whether it went as a holder (so, for an exclusive
 * rule, nobody else is ahead any more) or left the queue early — without listing the directory
 * again. That turns a drain of N local waiters from O(N²) listing traffic into O(N).
 */
const bySession = new WeakMap<ZkSession, Map<string, LocalSeatState>>();

export function localSeats(session: ZkSession): Map<string, LocalSeatState> {
  let seats = bySession.get(session);
  if (seats === undefined) {
    seats = new Map();
    bySession.set(session, seats);
  }
  return seats;
}
