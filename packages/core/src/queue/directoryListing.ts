import { protectionGuidOf } from '../nodes/index.js';
import type { ZkSession } from '../session/ZkSession.js';

/** Per session: the listing of each lock directory that is asked for and not yet sent. */
const pendingBySession = new WeakMap<ZkSession, Map<string, Promise<string[]>>>();

/**
 * The children of lock directory `dir`, from a listing sent after this call and shared by every
 * contender of this session that asks before it is sent (docs/architecture.md, "Bounded recovery").
 * It goes out in the next turn of the event loop, so contenders woken together (by one
 * reconnection, one batch of events, one round of retry timers) send one `getChildren`, not one
 * each: ten thousand contenders recovering in a directory of ten thousand nodes would otherwise ask
 * the server for 10^8 names at once. Every caller gets the same array: never modify it.
 */
export function nextListing(session: ZkSession, dir: string): Promise<string[]> {
  let pending = pendingBySession.get(session);
  if (pending === undefined) {
    pending = new Map();
    pendingBySession.set(session, pending);
  }
  let listing = pending.get(dir);
  if (listing === undefined) {
    const waiting = pending;
    listing = new Promise<string[]>((resolve, reject) => {
      setImmediate(() => {
        waiting.delete(dir);
        session.getChildren(dir).then(({ children }) => resolve(children), reject);
      });
    });
    listing.catch(() => undefined); // each caller handles it
    pending.set(dir, listing);
  }
  return listing;
}

/** Names in a listing by the GUID of their protected name (lower case), built once per listing. */
const guidIndexes = new WeakMap<readonly string[], Map<string, string[]>>();

/** The names in `children` that carry `guid`: a create's nodes, found again after its reply was lost. */
export function namesWithGuid(children: readonly string[], guid: string): readonly string[] {
  let index = guidIndexes.get(children);
  if (index === undefined) {
    index = new Map();
    for (const name of children) {
      const found = protectionGuidOf(name)?.toLowerCase();
      if (found === undefined) continue;
      const names = index.get(found);
      if (names === undefined) index.set(found, [name]);
      else names.push(name);
    }
    guidIndexes.set(children, index);
  }
  return index.get(guid.toLowerCase()) ?? [];
}
