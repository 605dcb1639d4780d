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
 * `timeoutMs` (what is left of the acquisition's deadline, from this call) and `signal` (the
 * caller's) end the wait, for the answer as for the connection: it then counts as ended, and the
 * pause after a lost session ends the acquisition with their own errors. A request held by a
 * server that does not answer (a one-way partition, a stall) must not hold the caller past its
 * deadline or its abort (docs/architecture.md, "Deadlines").
 */
export async function sessionEnded(session: ZkSession, generation: number, timeoutMs: number | undefined, signal: AbortSignal | undefined): Promise<boolean> {
  const sources = [...(signal === undefined ? [] : [signal]), ...(timeoutMs === undefined ? [] : [AbortSignal.timeout(timeoutMs)])];
  const stop = sources.length === 0 ? undefined : followFirst(sources);
  const stopped = (): boolean => stop?.signal.aborted === true;
  try {
    for (;;) {
      if (session.generation !== generation || stopped()) return true;
      try {
        if ((await answerUnlessStopped(session.exists('/'), stop?.signal)) === STOPPED) return true;
        return session.generation !== generation;
      } catch (err) {
        if (isZkError(err, 'SESSION_LOST')) return true;
        if (!isZkError(err, 'CONNECTION_LOSS')) throw err;
      }
      try {
        await session.waitForConnected(stop?.signal);
      } catch (err) {
        if (stopped()) return true;
        throw err;
      }
    }
  } finally {
    stop?.unlink();
  }
}

const STOPPED = Symbol('stopped');

/** `call`'s outcome, or {@link STOPPED} as soon as `signal` aborts first (`call` is then left to settle unheard). */
function answerUnlessStopped<T>(call: Promise<T>, signal: AbortSignal | undefined): Promise<T | typeof STOPPED> {
  if (signal === undefined) return call;
  return new Promise<T | typeof STOPPED>((resolve, reject) => {
    const onAbort = (): void => resolve(STOPPED);
    signal.addEventListener('abort', onAbort, { once: true });
    call.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
