import { isZkError, listAndWatchChildren, type ZkSession } from '@zk-recipes/core';

/** The children of `path` ([] when it does not exist), sorted by name. */
export async function childrenOf(session: ZkSession, path: string): Promise<string[]> {
  try {
    return (await session.getChildren(path)).children.sort();
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return [];
    throw err;
  }
}

/** Resolves with the children of `path` once `accept` says yes, woken by child watches (no polling). */
export async function untilChildren(
  session: ZkSession,
  path: string,
  accept: (children: string[]) => boolean,
  timeoutMs = 15_000,
): Promise<string[]> {
  const signal = AbortSignal.timeout(timeoutMs);
  for (;;) {
    const { children, changed } = await listAndWatchChildren(session, path, signal);
    if (accept(children)) return children;
    await changed;
  }
}

/** A promise with its resolve function outside. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
