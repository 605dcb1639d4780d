/**
 * The operator: a third party with access to the lock's nodes, doing what people and tools do to
 * them — zkCli's `delete` and `deleteall`, a `set` of arbitrary bytes, Curator's `Revoker` writing
 * `__REVOKE__`. Tests use it to attack the lock recipes; it never cooperates with them.
 *
 * It talks through a `ZkSession` of its own (not the raw wire client): on a 3-server ensemble
 * whose leader is killed or paused it must move to another server (the raw client never times out
 * a hung server), and every call must settle so a nemesis never hangs on its own operator. What
 * the operator *does* stays independent of the code under test: it uses only the plain
 * `getChildren`, `exists`, `delete` and `setData` requests, no recipe and no engine code.
 *
 * Every mutation is timed on CLOCK_MONOTONIC (`process.hrtime.bigint()`), the clock the workers'
 * critical sections use: `start` before the request is sent, `done` once the server's answer is
 * back. The server applied it somewhere in between.
 */
import { ZkSession, type Stat, type ZkSessionOptionsInput } from '@zk-recipes/core';
import { Prng } from './nemesis/prng.js';

/** What Curator's `Revoker.attemptRevoke` writes to a lock node to ask its holder to release. */
export const REVOKE_MARKER = '__REVOKE__';

/** The order in which {@link Operator.deleteAll} deletes the children of each node. */
export type DeleteOrder =
  /** Newest first (highest `czxid`): the late waiters go first, the holder last. */
  | 'youngest-first'
  /** Oldest first (lowest `czxid`): the holder first, then the waiters in queue order. */
  | 'oldest-first'
  /** A random order from `seed`: the same seed gives the same permutation of the same listing. */
  | 'random';

/** One node the operator deleted (or tried to: `deleted: false` when it was already gone). */
export interface DeleteRecord {
  /** The node. */
  path: string;
  /** The node's stat as seen just before (absent when it was gone by then). */
  czxid?: bigint;
  /** The session that owned it, from the same stat (0 for a persistent node). */
  ephemeralOwner?: bigint;
  /** CLOCK_MONOTONIC ns before the delete was sent. */
  start: bigint;
  /** CLOCK_MONOTONIC ns when the answer came back. */
  done: bigint;
  /** Whether the operator deleted it (false: it was already gone). */
  deleted: boolean;
  /**
   * The answer to an earlier attempt was lost with the connection, so the node may have gone by our
   * hand or another's anywhere in [start, done]; the operator counts it as deleted by itself (the
   * checker then allows for it: the conservative reading for an attacker's bookkeeping).
   */
  uncertain?: true;
}

/** One foreign write. */
export interface WriteRecord {
  /** The node written. */
  path: string;
  /** CLOCK_MONOTONIC ns before the write was sent. */
  start: bigint;
  /** CLOCK_MONOTONIC ns when the answer came back. */
  done: bigint;
  /** False when the node did not exist (nothing was written). */
  written: boolean;
}

/** Options of {@link Operator.deleteAll}. */
export interface DeleteAllOptions {
  /** Default `youngest-first` (what a recursive delete that walks the listing backwards does). */
  order?: DeleteOrder;
  /** Seed of the `random` order (default 1). */
  seed?: number;
  /** Delete `path` itself too, after its children (default true, like `deleteall`). */
  includeSelf?: boolean;
  /**
   * New children keep arriving while contenders run: list again and delete the newcomers at most
   * this many times before giving up on `path` itself (default 5). Nodes deleted are all reported.
   */
  maxRounds?: number;
}

function isCode(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === code;
}

/**
 * A failure whose request may still have been applied: the connection (or the whole session) went
 * before the answer came. Anything else (NO_NODE, NOT_EMPTY, NO_AUTH...) is the server's answer.
 */
function isUnanswered(err: unknown): boolean {
  return isCode(err, 'CONNECTION_LOSS') || isCode(err, 'SESSION_LOST') || isCode(err, 'SESSION_EXPIRED') || isCode(err, 'OPERATION_TIMEOUT');
}

/**
 * An operator call gave up (its session could not reach a server for its patience, see
 * {@link OperatorOptions.patienceMs}).
 * `records` holds every delete it sent before, the last one possibly applied (`uncertain`): a
 * `deleteall` that fails half-way has still deleted what it deleted, and whoever keeps the books of
 * an attack must know it.
 */
export class OperatorError extends Error {
  /** @param records - The nodes the failed call had deleted (or tried to) before it gave up. */
  constructor(
    message: string,
    readonly records: DeleteRecord[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'OperatorError';
  }
}

/** How long one operator call retries a request whose answer was lost (a leader election, a partition). */
export const OPERATOR_PATIENCE_MS = 30_000;

const now = (): bigint => process.hrtime.bigint();

/** How an {@link Operator} behaves. */
export interface OperatorOptions {
  /**
   * How long one call keeps sending again a request whose answer was lost (a leader election, a
   * partition) before it gives up with an {@link OperatorError} (default {@link OPERATOR_PATIENCE_MS}).
   */
  patienceMs?: number;
}

/** The adversary's hands. Create with {@link Operator.connect} or around an existing session. */
export class Operator {
  private readonly owned: boolean;
  private readonly patienceMs: number;

  /**
   * Wraps `session` (not closed by {@link close} unless `owned`).
   * @param session - The operator's session: every request it sends goes through it.
   * @param owned - Whether {@link close} closes `session` too (as for {@link Operator.connect}'s).
   */
  constructor(
    readonly session: ZkSession,
    owned = false,
    options: OperatorOptions = {},
  ) {
    this.owned = owned;
    this.patienceMs = options.patienceMs ?? OPERATOR_PATIENCE_MS;
  }

  /** Connects a session of its own (closed by {@link close}). */
  static async connect(options: ZkSessionOptionsInput | string, operatorOptions: OperatorOptions = {}): Promise<Operator> {
    const session = await ZkSession.connect(typeof options === 'string' ? { connectString: options } : options);
    return new Operator(session, true, operatorOptions);
  }

  /** The children of `path` with their stats, oldest (lowest `czxid`) first; `[]` if `path` is gone. */
  async childrenByAge(path: string): Promise<
    Array<{
      /** The child's full path. */
      path: string;
      /** Its stat when listed. */
      stat: Stat;
    }>
  > {
    const start = now();
    for (;;) {
      try {
        return await this.listByAge(path);
      } catch (err) {
        if (!isUnanswered(err)) throw err;
        await this.reconnected(start, () => [], err); // reads: asking again changes nothing
      }
    }
  }

  private async listByAge(path: string): Promise<Array<{ path: string; stat: Stat }>> {
    let names: string[];
    try {
      names = (await this.session.getChildren(path)).children;
    } catch (err) {
      if (isCode(err, 'NO_NODE')) return [];
      throw err;
    }
    const base = path === '/' ? '' : path;
    // Pipelined: one round trip for all the stats.
    const stats = await Promise.all(names.map((name) => this.session.exists(`${base}/${name}`)));
    const out: Array<{ path: string; stat: Stat }> = [];
    names.forEach((name, i) => {
      const stat = stats[i];
      if (stat) out.push({ path: `${base}/${name}`, stat });
    });
    return out.sort((a, b) => (a.stat.czxid < b.stat.czxid ? -1 : a.stat.czxid > b.stat.czxid ? 1 : 0));
  }

  /**
   * Deletes one node, any version (zkCli `delete`). Resolves with what happened; a node that was
   * already gone is `deleted: false`, not an error. A node with children rejects (`NOT_EMPTY`).
   * A delete whose answer is lost with the connection is sent again once connected, until the
   * server answers (see {@link DeleteRecord.uncertain}); after its patience it rejects with an {@link OperatorError} naming the possibly applied delete.
   */
  async deleteNode(path: string, known?: Stat | null): Promise<DeleteRecord> {
    const start = now();
    let unanswered = false;
    const outcome = (deleted: boolean): DeleteRecord => ({
      path,
      ...statFields(known),
      start,
      done: now(),
      deleted: deleted || unanswered,
      ...(unanswered ? { uncertain: true as const } : {}),
    });
    for (;;) {
      try {
        await this.session.delete(path);
        return outcome(true);
      } catch (err) {
        if (isCode(err, 'NO_NODE')) return outcome(false);
        // Any other answer (NOT_EMPTY, NO_AUTH...) means the node is still there: nothing went.
        if (!isUnanswered(err)) throw err;
        unanswered = true;
        await this.reconnected(start, () => [outcome(true)], err);
      }
    }
  }

  /** Waits until the session is connected again, within the patience that began at `start`. */
  private async reconnected(start: bigint, sent: () => DeleteRecord[], err: unknown): Promise<void> {
    const left = Math.ceil(this.patienceMs - Number(now() - start) / 1e6);
    try {
      if (left <= 0) throw err;
      await this.session.waitForConnected(AbortSignal.timeout(left));
    } catch {
      throw new OperatorError(`gave up after ${this.patienceMs} ms without a server: ${(err as Error).message}`, sent(), { cause: err });
    }
  }

  /**
   * Deletes `path` and everything below it (zkCli `deleteall`), children before their parent, the
   * siblings of each level in `order`. Children that appear meanwhile (contenders keep queueing)
   * are deleted in further rounds. Resolves with every delete, in the order they were sent; if it
   * fails half-way it rejects with an {@link OperatorError} whose `records` are the deletes sent
   * until then.
   */
  async deleteAll(path: string, options: DeleteAllOptions = {}): Promise<DeleteRecord[]> {
    const order = options.order ?? 'youngest-first';
    const prng = new Prng(options.seed ?? 1);
    const maxRounds = options.maxRounds ?? 5;
    const records: DeleteRecord[] = [];
    const walk = async (node: string, depth: number): Promise<void> => {
      for (let round = 0; round < maxRounds; round++) {
        const children = await this.childrenByAge(node);
        if (children.length === 0) break;
        const ordered = order === 'oldest-first' ? children : order === 'youngest-first' ? [...children].reverse() : prng.shuffle(children);
        for (const child of ordered) {
          if (child.stat.numChildren > 0) await walk(child.path, depth + 1);
          try {
            records.push(await this.deleteNode(child.path, child.stat));
          } catch (err) {
            // A child created below it meanwhile: the next round takes it.
            if (!isCode(err, 'NOT_EMPTY')) throw err;
          }
        }
      }
      if (depth === 0 && options.includeSelf === false) return;
      try {
        records.push(await this.deleteNode(node, await this.session.exists(node).catch(() => undefined))); // the stat is for reports only
      } catch (err) {
        if (!isCode(err, 'NOT_EMPTY')) throw err; // contenders outran us: the directory stays
      }
    };
    try {
      await walk(path, 0);
    } catch (err) {
      const sent = err instanceof OperatorError ? [...records, ...err.records] : records;
      throw new OperatorError(`deleteall ${path} failed after ${sent.length} deletes: ${(err as Error).message}`, sent, { cause: err });
    }
    return records;
  }

  /** Writes foreign bytes to a node, any version (zkCli `set`). `written: false` if it was gone. */
  async writeData(path: string, data: Uint8Array | string): Promise<WriteRecord> {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    const start = now();
    try {
      await this.session.setData(path, bytes);
      return { path, start, done: now(), written: true };
    } catch (err) {
      if (isCode(err, 'NO_NODE')) return { path, start, done: now(), written: false };
      throw err;
    }
  }

  /** Writes Curator's revocation request ({@link REVOKE_MARKER}) to a lock node. */
  revoke(path: string): Promise<WriteRecord> {
    return this.writeData(path, REVOKE_MARKER);
  }

  /** Closes the session if the operator opened it. */
  async close(): Promise<void> {
    if (this.owned) await this.session.close();
  }
}

function statFields(stat: Stat | null | undefined): { czxid?: bigint; ephemeralOwner?: bigint } {
  return stat ? { czxid: stat.czxid, ephemeralOwner: stat.ephemeralOwner } : {};
}
