import type { ZkSession } from '../session/ZkSession.js';

/**
 * Lists `path` with a child watch set. Returns the children and a promise that resolves at the
 * next change of the children, or rejects with `signal.reason` when `signal` fires.
 */
export async function listAndWatchChildren(
  session: ZkSession,
  path: string,
  signal: AbortSignal,
): Promise<{ children: string[]; changed: Promise<void> }> {
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
