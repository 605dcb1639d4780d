import type { ZkSession } from '../session/ZkSession.js';
import type { StopSignal } from '../signals/StopSignal.js';

/*
 * The children wait (docs/architecture.md, "Watches"): a listing with a child watch set, and the
 * engine's wait for the next change of a queue's children.
 */

/** A listing made with a child watch still armed: `changed` settles at the next change. */
export interface WatchedListing {
  children: string[];
  changed: Promise<void>;
}

/**
 * Lists `path` with a child watch set. Returns the children and a promise that resolves at the
 * next change of the children, or rejects with `signal.reason` when `signal` fires.
 */
export async function listAndWatchChildren(session: ZkSession, path: string, signal: AbortSignal): Promise<WatchedListing> {
  let onChange!: () => void;
  const watcher = () => onChange();
  const changedOrStopped = new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      session.unwatch(path, watcher);
      reject(signal.reason);
    };
    onChange = () => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  changedOrStopped.catch(() => undefined); // the caller may never wait on it
  const { children } = await session.getChildren(path, watcher);
  // Aborted before the reply registered the watch: unregister it now.
  if (signal.aborted) session.unwatch(path, watcher);
  return { children, changed: changedOrStopped };
}

/** Something outside the directory that also ends the wait (see `Recheck`). */
export interface EarlyEnd {
  /** A change came since the decision. */
  readonly fired: boolean;
  /** Resolves at the next change. */
  next(): Promise<void>;
}

/**
 * Waits for the children of `dir` to change after a decision on `children`: resolves with a new
 * listing (its watch armed) when the children already differ, else `'relist'` at the change (or at
 * `early`'s next change). The listing decided on may already carry the watch (`armed`).
 */
export async function waitForChildrenChange(
  session: ZkSession,
  dir: string,
  children: string[],
  armed: WatchedListing | undefined,
  early: EarlyEnd | undefined,
  stop: StopSignal,
): Promise<WatchedListing | 'relist'> {
  let watched = armed !== undefined && armed.children === children ? armed : undefined;
  if (watched === undefined) {
    watched = await stop.race(listAndWatchChildren(session, dir, stop.signal));
    if (!sameChildren(watched.children, children) || early?.fired === true) return watched;
  }
  await (early === undefined ? watched.changed : Promise.race([watched.changed, early.next()]));
  // Usually a release: we will most likely hold the lock, and a watch set now would only
  // notify us (the holder) needlessly later. List plainly.
  return 'relist';
}

function sameChildren(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(a);
  return b.every((name) => set.has(name));
}
