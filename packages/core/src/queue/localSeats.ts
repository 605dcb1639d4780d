import type { ZkSession } from '../session/ZkSession.js';

/** What this process knows about one of its own queue nodes. */
export interface LocalSeatState {
  /** Became true when the node was granted the lock; stays true after it is released. */
  held: boolean;
  /**
   * Local waiters whose turn comes when this node leaves as a holder (their rule said so with
   * `lastObstacleIfHeld`). Called as soon as the delete of this node is sent.
   */
  successors?: LocalSuccessor[];
  /**
   * Another node of ours stands at this node's place and stays when it goes (a read/write lock's
   * downgrade read node): its going as a holder then hands nothing over.
   */
  keepsPlace?: boolean;
}

/** A local waiter told when its predecessor hands over (a node wait, ended with 'handed-over'). */
export interface LocalSuccessor {
  settle(outcome: 'handed-over'): void;
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

/** Tells `successor` when the local holder `predecessor` leaves (its delete is sent). */
export function followLocalHolder(predecessor: LocalSeatState, successor: LocalSuccessor): void {
  // Usually the only one: an exactly sized array, not an empty one grown to 17 slots.
  if (predecessor.successors === undefined) predecessor.successors = [successor];
  else predecessor.successors.push(successor);
}

/** Stops telling `successor` (its wait ended otherwise). */
export function unfollowLocalHolder(predecessor: LocalSeatState, successor: LocalSuccessor): void {
  const successors = predecessor.successors;
  const index = successors?.indexOf(successor) ?? -1;
  if (index >= 0) successors!.splice(index, 1);
}

/**
 * The holder `state` is leaving and its delete is on the wire: its local successors take over now.
 *
 * Safe without waiting for the server: our node is the only one ahead of theirs (their rule said
 * so), and every request they send from now on reaches ZooKeeper after that delete (one session is
 * answered in order). Other processes see our node until the delete lands, which only makes them
 * wait longer. A drain of N local waiters thus costs N pipelined deletes, not N round trips.
 */
export function handOver(state: LocalSeatState): void {
  const successors = state.successors;
  state.successors = undefined;
  if (successors !== undefined) for (const successor of successors) successor.settle('handed-over');
}

/**
 * Marks our queue node at `path` as one whose place stays taken after it goes (see
 * {@link LocalSeatState.keepsPlace}): its release then hands over to no local waiter, which lists
 * again instead. Call before the node that keeps the place is created.
 */
export function keepPlaceAfterLeaving(session: ZkSession, path: string): void {
  const state = localSeats(session).get(path);
  if (state !== undefined) state.keepsPlace = true;
}

/** Whether `state` is a node of ours that went, or will go, as a holder leaving nothing in its place. */
export function handsOverWhenLeaving(state: LocalSeatState): boolean {
  return state.held && state.keepsPlace !== true;
}
