import type { ZkSession } from '../session/ZkSession.js';

/**
 * Curator's revocation protocol (its `Revoker`): whoever wants a lock holder to let go writes this
 * marker as the data of the holder's node; a holder that listens for it (Curator's
 * `makeRevocable`, our `acquire({ onRevoke })`) is asked to release. It is a request, never a
 * forced release: only the holder deletes its node.
 */
export const REVOCATION_MARKER = '__REVOKE__';

const MARKER_BYTES = Buffer.from(REVOCATION_MARKER, 'utf8');

/** Whether `data` is Curator's revocation marker. */
export function isRevocationRequest(data: Uint8Array | null | undefined): boolean {
  return data != null && MARKER_BYTES.equals(data);
}

/**
 * Asks the holder of the lock node at `nodePath` to release it, the way Curator's
 * `Revoker.attemptRevoke` does (works for Java holders that made their lock revocable too).
 * Resolves once the server applied the write; the holder's `onRevoke` (or Curator listener) is
 * called afterwards, and releasing is up to it: a holder that does not listen keeps the lock. A
 * contender still waiting is told once it holds. The write replaces the node's data (whatever the
 * recipe's `data` option put there). Find the holder's node with `getParticipantNodes()` (holders
 * first) or a handle's `path`.
 * @throws ZooKeeperError (`NO_NODE`) when the node is gone already (Curator's `Revoker` ignores that).
 */
export async function requestRevocation(session: ZkSession, nodePath: string): Promise<void> {
  await session.setData(nodePath, MARKER_BYTES);
}
