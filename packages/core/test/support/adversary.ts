/**
 * Helpers for the safety tests of every recipe: an operator that deletes and writes
 * lock nodes behind the library's back, outcomes of acquisitions that can be inspected while they
 * are still pending, and a way to know that a session has seen everything the server sent it
 * before a given moment — so each test builds its order from round trips and events, not timers.
 */
import { isZkError, ZkRecipesError, type ZkSession } from '@zk-recipes/core';
import { sortedChildren } from '@zk-recipes/core/recipe-kit';

/** What an acquisition did, as far as the test can tell right now. */
export type Outcome<T> =
  | { state: 'pending' }
  | { state: 'resolved'; value: T }
  | { state: 'rejected'; reason: unknown };

/** An acquisition whose outcome can be read at any moment, and awaited. */
export interface Tracked<T> {
  readonly outcome: Outcome<T>;
  /** Resolves (never rejects) once the acquisition settled. */
  readonly settled: Promise<Outcome<T>>;
}

/** Starts tracking `promise` (its rejection is handled: no unhandled-rejection noise). */
export function track<T>(promise: Promise<T>): Tracked<T> {
  let outcome: Outcome<T> = { state: 'pending' };
  const settled = promise.then(
    (value) => (outcome = { state: 'resolved', value }),
    (reason: unknown) => (outcome = { state: 'rejected', reason }),
  );
  return {
    get outcome() {
      return outcome;
    },
    settled,
  };
}

/** The error code of `reason`, if it has one. */
export function codeOf(reason: unknown): string | undefined {
  return typeof reason === 'object' && reason !== null ? ((reason as { code?: unknown }).code as string | undefined) : undefined;
}

/**
 * An outcome in a form `toEqual` can compare and print: `{ state: 'resolved' }` (a grant: the
 * failure message then says the lock was taken), or `{ state: 'rejected', code, path, typed }`.
 */
export function brief(outcome: Outcome<unknown>): Record<string, unknown> {
  if (outcome.state !== 'rejected') return { state: outcome.state };
  const reason = outcome.reason;
  return {
    state: 'rejected',
    code: codeOf(reason),
    path: reason instanceof ZkRecipesError ? reason.path : undefined,
    typed: reason instanceof ZkRecipesError,
  };
}

/** Waits for `promise`, failing the test with `what` if it takes longer than `ms` (a bound, not a sleep). */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: did not happen within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function nextImmediate(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Returns once `session` has been told everything the server sent it before now, and has acted on
 * it as far as it can without the server. ZooKeeper answers one session in order, and sends a
 * session's watch events before the replies to its later requests: so once the reply to a request
 * sent now is in, every event that preceded it has arrived. The session delivers events with
 * `setImmediate` (a NO_NODE reply to a watch request is told the same way, one more turn), replies
 * as promise reactions: two turns of the check phase let both run, with the microtasks they start.
 */
export async function caughtUp(session: ZkSession): Promise<void> {
  await session.exists('/');
  await nextImmediate();
  await nextImmediate();
}

/**
 * Returns once a contender that has just enqueued on `session` has set its wait on the server: its
 * create and listing were sent before our first request, so after the first round trip (and the
 * turns that follow) it has decided and sent its watch requests; after the second they are set.
 * Call once its node is in the directory.
 */
export async function settledInWait(session: ZkSession): Promise<void> {
  await caughtUp(session);
  await caughtUp(session);
}

/** Full paths of the children of `dir` sorted by sequence (oldest first); [] if `dir` is gone. */
export async function queueOf(session: ZkSession, dir: string): Promise<string[]> {
  try {
    const { children } = await session.getChildren(dir);
    return sortedChildren(children).map((entry) => `${dir}/${entry.name}`);
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return [];
    throw err;
  }
}

/**
 * Resolves with the queue of `dir` (oldest first) once it has `count` nodes, woken by child
 * watches (no polling).
 */
export async function untilQueue(session: ZkSession, dir: string, count: number, timeoutMs = 15_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let wake!: () => void;
    const changed = new Promise<void>((resolve) => (wake = resolve));
    let names: string[] = [];
    try {
      names = (await session.getChildren(dir, () => wake())).children;
    } catch (err) {
      if (!isZkError(err, 'NO_NODE')) throw err;
      if ((await session.exists(dir, () => wake())) !== null) continue;
    }
    if (names.length === count) return sortedChildren(names).map((entry) => `${dir}/${entry.name}`);
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`untilQueue: ${dir} has ${names.length} nodes, not ${count}, after ${timeoutMs} ms`);
    await within(changed, left, `untilQueue: ${dir} to have ${count} nodes`);
  }
}

/**
 * Someone with access to the ensemble who is not a lock client: an operator with zkCli, an admin
 * script, Curator's `Revoker`. Works through its own session.
 */
export class Operator {
  constructor(readonly session: ZkSession) {}

  /** `delete <path>`. */
  async deleteNode(path: string): Promise<void> {
    await this.session.delete(path);
  }

  /** `set <path> <data>`: a foreign write on a node (random bytes, or Curator's `__REVOKE__`). */
  async write(path: string, data: Uint8Array): Promise<void> {
    await this.session.setData(path, data);
  }

  /**
   * `deleteall <dir>`, youngest child first: children by descending sequence (each subtree's
   * children before the node itself), then `dir`. Returns the paths in the order deleted.
   */
  async deleteAllYoungestFirst(dir: string): Promise<string[]> {
    const deleted: string[] = [];
    const { children } = await this.session.getChildren(dir);
    const withSequence = sortedChildren(children).map((entry) => entry.name);
    const others = children.filter((name) => !withSequence.includes(name));
    for (const name of [...withSequence.reverse(), ...others]) {
      const path = `${dir}/${name}`;
      if ((await this.session.getChildren(path)).children.length > 0) deleted.push(...(await this.deleteAllYoungestFirst(path)));
      else {
        await this.session.delete(path);
        deleted.push(path);
      }
    }
    await this.session.delete(dir);
    deleted.push(dir);
    return deleted;
  }
}

/** A holder's signal as a comparable record: `{ aborted, code }`. */
export function signalState(signal: AbortSignal): { aborted: boolean; code: string | undefined } {
  return { aborted: signal.aborted, code: signal.aborted ? codeOf(signal.reason) : undefined };
}
