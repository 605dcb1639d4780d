import { isZkError, type Stat, type Watcher, type ZkSession } from '@zk-recipes/core';

/** Children of `path`, or `null` when it does not exist; `watcher` (if any) is set on its children. */
export async function childrenOrNull(session: ZkSession, path: string, watcher: Watcher | undefined): Promise<string[] | null> {
  return (await listingOrNull(session, path, watcher))?.children ?? null;
}

/** {@link childrenOrNull} with the node's stat. */
export async function listingOrNull(session: ZkSession, path: string, watcher: Watcher | undefined): Promise<{ children: string[]; stat: Stat } | null> {
  try {
    return await session.getChildren(path, watcher);
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return null;
    throw err;
  }
}

/** Data and stat of `path`, or `null` when it does not exist (a contender gone since the listing). */
export async function dataOrNull(session: ZkSession, path: string, watcher: Watcher | undefined): Promise<{ data: Buffer; stat: Stat } | null> {
  try {
    return await session.getData(path, watcher);
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return null;
    throw err;
  }
}

/** A session id as `ZkSession.sessionId` writes it: 16 hex digits. `null` for 0 (a persistent node). */
export function sessionIdOf(ephemeralOwner: bigint): string | null {
  return ephemeralOwner === 0n ? null : BigInt.asUintN(64, ephemeralOwner).toString(16).padStart(16, '0');
}
