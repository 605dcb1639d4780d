import { isZkError } from '../errors.js';
import type { ZkSession } from '../session/ZkSession.js';
import type { WatchEvent } from '../session/types.js';

/** Why a wait on a node ended without an error. */
export type NodeWaitOutcome =
  /** The node was deleted (or had already gone when we looked). */
  | 'gone'
  /** The node's data changed (a holder nudging its successor); the caller should look again. */
  | 'changed';

/**
 * Waits until the node at `path` is gone, or its data changes, or `signal` fires (then rejects
 * with `signal.reason`).
 *
 * It sets a *data* watch (getData), not an `exists` watch: on a node that is already gone a data
 * watch is not set at all, so nothing dangles. An aborted wait unregisters its callback at once, so
 * abandoned waits on a node that stays put do not pile up; the session's registry forgets the
 * one-shot wire watch when it fires or the session ends.
 */
export function waitUntilGone(session: ZkSession, path: string, signal: AbortSignal): Promise<NodeWaitOutcome> {
  return new Promise<NodeWaitOutcome>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    let settled = false;
    const finish = (settle: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      settle();
    };
    const watcher = (event: WatchEvent) => finish(() => resolve(event.type === 'deleted' ? 'gone' : 'changed'));
    const onAbort = () => {
      session.unwatch(path, watcher);
      finish(() => reject(signal.reason));
    };
    signal.addEventListener('abort', onAbort, { once: true });

    session
      .getData(path, watcher)
      .then(() => {
        // Aborted before the reply registered the watch: unregister it now.
        if (settled) session.unwatch(path, watcher);
      })
      .catch((err: unknown) => {
        if (isZkError(err, 'NO_NODE')) finish(() => resolve('gone'));
        else finish(() => reject(err));
      });
  });
}
