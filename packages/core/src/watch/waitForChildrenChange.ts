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
  const changedOrStopped = new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    onChange = () => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  changedOrStopped.catch(() => undefined); // the caller may never wait on it
  const { children } = await session.getChildren(path, () => onChange());
  return { children, changed: changedOrStopped };
}
