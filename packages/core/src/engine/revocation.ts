import { revocationRequest } from '../nodes/nodeData.js';
import type { ZkSession } from '../session/ZkSession.js';

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
  await session.setData(nodePath, revocationRequest());
}
