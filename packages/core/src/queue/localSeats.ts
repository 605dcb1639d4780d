import type { ZkSession } from '../session/ZkSession.js';
import type { OwnNodeWatch } from './OwnNodeWatch.js';

/** What this process knows about one of its own queue nodes. */
export interface LocalSeatState {
  /** Became true when the node was granted the lock; stays true after it is released. */
  held: boolean;
  /** The watch on this node (see {@link OwnNodeWatch}), ended when we leave. */
  own?: OwnNodeWatch;
  /** Ends what the holding follows (the session's signal); set when the node is granted. */
  endHolding?: () => void;
  /**
   * Another node of ours stands at this node's place and stays when it goes (a read/write lock's
   * downgrade read node): its going as a holder then hands nothing over.
   */
  keepsPlace?: boolean;
}

/**
 * The queue nodes this process created, per session, by full path. A waiter whose predecessor is
 * one of them can tell, when that node goes, whether it went as a holder (so, for an exclusive
 * rule, nobody else is ahead any more) or left the queue early — without listing the directory
 * again. That turns a drain of N local waiters from O(N²) listing traffic into O(N).
 *
 * The waiter still learns of the going from the server (its watch), never from the holder's
 * code: the server tells our session the deletion of our own node, if someone else deleted it,
 * before that event, and a grant requires our node (see `OwnNodeWatch`).
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

/**
 * Marks our queue node at `path` as one whose place stays taken after it goes (see
 * {@link LocalSeatState.keepsPlace}): a local waiter behind it then lists again when it goes,
 * rather than taking its going for the lock's release. Call before the node that keeps the place is created.
 */
export function keepPlaceAfterLeaving(session: ZkSession, path: string): void {
  const state = localSeats(session).get(path);
  if (state !== undefined) state.keepsPlace = true;
}

/** Whether `state` is a node of ours that was granted and leaves nothing of ours in its place. */
export function leavesAsHolder(state: LocalSeatState): boolean {
  return state.held && state.keepsPlace !== true;
}
