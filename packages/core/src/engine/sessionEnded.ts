import { isZkError } from '../errors.js';
import type { ZkSession } from '../session/ZkSession.js';
import { followFirst } from '../signals/followFirst.js';

/**
 * Whether the ZooKeeper session `generation` of `session` has ended. Its end deletes our ephemeral
 * nodes, and the server sends those deletions' watch events before it closes the connection: a
 * node of ours can be read as deleted (`NODE_DELETED`) before its session's end is. So a deletion
 * is someone else's only if the session still answers a request sent after it was read; the
 * requests of an ended session never are (they settle with `SESSION_LOST`). One round trip, on a
 * failure path only.
 *
 * `timeoutMs` (what is left of the acquisition's deadline) and `signal` (the caller's) end the
 * wait for an answer while disconnected: it then counts as ended, and the pause after a lost
 * session ends the acquisition with their own errors.
 */
export async function sessionEnded(session: ZkSession, generation: number, timeoutMs: number | undefined, signal: AbortSignal | undefined): Promise<boolean> {
  for (;;) {
    if (session.generation !== generation) return true;
    try {
      await session.exists('/');
      return session.generation !== generation;
    } catch (err) {
      if (isZkError(err, 'SESSION_LOST')) return true;
      if (!isZkError(err, 'CONNECTION_LOSS')) throw err;
    }
    const sources = [...(signal === undefined ? [] : [signal]), ...(timeoutMs === undefined ? [] : [AbortSignal.timeout(timeoutMs)])];
    const stop = sources.length === 0 ? undefined : followFirst(sources);
    try {
      await session.waitForConnected(stop?.signal);
    } catch (err) {
      if (stop?.signal.aborted === true) return true;
      throw err;
    } finally {
      stop?.unlink();
    }
  }
}
