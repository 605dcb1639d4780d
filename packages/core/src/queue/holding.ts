import { onAbort } from './abortFanOut.js';
import type { LocalSeatState } from './localSeats.js';
import type { OwnNodeWatch } from './OwnNodeWatch.js';

/**
 * Starts holding the node `state` describes and returns the holder's signal: aborted when the
 * ZooKeeper session is lost (its signal's reason) or when someone else deletes our node (a
 * `NodeDeletedError`). The lock is not ours in either case. `LockQueue.leave` ends it.
 */
export function beginHolding(state: LocalSeatState, own: OwnNodeWatch, sessionSignal: AbortSignal, onRevoke: (() => void) | undefined): AbortSignal {
  state.held = true;
  const holding = new AbortController();
  const unfollow = onAbort(sessionSignal, () => holding.abort(sessionSignal.reason));
  state.endHolding = unfollow;
  own.held({
    ownNodeGone: (error) => {
      unfollow();
      holding.abort(error);
    },
    revocationRequested: () => onRevoke?.(),
  });
  return holding.signal;
}
