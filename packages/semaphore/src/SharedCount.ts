import { EventEmitter } from 'eventemitter3';
import { z } from 'zod';
import { InvalidArgumentError, isZkError, type ZkSession } from '@zk-recipes/core';
import { checkSharedNodeAcl, parentOf, parseOptions, validatePath, type AssertTrue, type TypesEqual } from '@zk-recipes/core/recipe-kit';

/** Options of {@link SharedCount}. */
export interface SharedCountOptions {
  /** Value written when the node does not exist yet (a 32-bit signed integer). */
  seedValue: number;
}

const sharedCountOptionsSchema = z
  .object({
    seedValue: z.number().int().min(-(2 ** 31)).max(2 ** 31 - 1),
  })
  .strict();

// The schema accepts exactly the public type: this stops the build if one changes without the other.
type _SchemaMatchesSharedCountOptions = AssertTrue<TypesEqual<z.input<typeof sharedCountOptionsSchema>, SharedCountOptions>>;

/** A count and the node version it was read at (for {@link SharedCount.trySetCount}). */
export interface VersionedCount {
  /** The count. */
  readonly value: number;
  /** The node's data version it was read at: `trySetCount` succeeds only if it is still current. */
  readonly version: number;
}

/** Events of a {@link SharedCount}. */
export interface SharedCountEvents {
  /** The count changed (by us or anyone else); the new value. */
  changed: (count: number) => void;
  /** Re-reading the node failed for a reason other than connection trouble. */
  error: (err: Error) => void;
}

const int32 = z.number().int().min(-(2 ** 31)).max(2 ** 31 - 1);

/** Encodes a count as Curator's SharedCount does: a 4-byte big-endian signed int. */
export function encodeCount(value: number): Uint8Array {
  const bytes = Buffer.alloc(4);
  bytes.writeInt32BE(value, 0);
  return bytes;
}

/** Decodes a 4-byte big-endian count; `null` for anything else. */
export function decodeCount(data: Uint8Array): number | null {
  return data.length === 4 ? Buffer.from(data.buffer, data.byteOffset, 4).readInt32BE(0) : null;
}

/**
 * A counter shared through one znode, with versioned compare-and-set and change events; the same
 * node format as Curator's `SharedCount`, so Java and Node processes can share one count. Call
 * {@link start} first: it creates the node with the seed value if missing and keeps a data watch
 * on it (re-armed after every event and every reconnection), so {@link getCount} is always the
 * latest value seen, without a round trip.
 */
export class SharedCount extends EventEmitter<SharedCountEvents> {
  /** The count's node. */
  readonly path: string;
  private readonly seedValue: number;
  private current: { value: number; version: number; mzxid: bigint } | undefined;
  private starting: Promise<void> | undefined;
  private closed = false;
  /** A data watch of the current ZooKeeper session is set: do not stack another one. */
  private watchArmed = false;
  /** The watchers we set (data, and exists while the node is gone): removed by {@link close}. */
  private readonly watchers = new Set<() => void>();
  /** A change of the node arrived (read off the wire) and its value is not read yet. */
  private changeArrived = false;
  /** Told whenever the value may have moved: a new value, or a change's read that ended. */
  private readonly settledListeners = new Set<() => void>();
  /** A new ZooKeeper session has none of the old one's watches. (After `reconnected` the same
   * session's watches are restored by the server, which fires them if the node changed meanwhile.) */
  private readonly onConnected = () => {
    this.watchArmed = false;
    void this.refresh();
  };

  constructor(
    /** The session the count is read and written in. */
    readonly session: ZkSession,
    path: string,
    options: SharedCountOptions,
  ) {
    super();
    this.path = validatePath(path, 'shared count path');
    this.seedValue = parseOptions(sharedCountOptionsSchema, options, 'SharedCount').seedValue;
  }

  /**
   * Creates the node if missing (with the seed value) and starts following it. Idempotent. With a
   * restrictive session ACL (and `aclCheck` on), a node that already exists is refused if its ACL
   * lets someone else write, delete or administer it: anyone could change the count.
   * @throws InsecureAclError (`INSECURE_ACL`) naming the node and its ACL
   */
  start(): Promise<void> {
    this.starting ??= this.doStart().catch((err: unknown) => {
      this.starting = undefined; // a later call tries again (e.g. after a lost connection)
      throw err;
    });
    return this.starting;
  }

  /**
   * @internal A change of the node has been read off the wire and its new value is still on its
   * way: the count ZooKeeper sent before anything read after it is not {@link getCount} yet. A
   * semaphore holds no new lease on the old value meanwhile (docs/architecture.md, "Counting
   * semaphores").
   */
  get settling(): boolean {
    return this.changeArrived;
  }

  /** @internal Calls `listener` at every new value and when a change's read ends; returns how to stop. */
  onSettled(listener: () => void): () => void {
    this.settledListeners.add(listener);
    return () => this.settledListeners.delete(listener);
  }

  /** The latest count seen. @throws InvalidArgumentError before {@link start} has finished. */
  getCount(): number {
    return this.getVersionedValue().value;
  }

  /** The latest count seen and its node version. */
  getVersionedValue(): VersionedCount {
    if (this.current === undefined) throw new InvalidArgumentError(`SharedCount ${this.path}: call start() first`);
    return { value: this.current.value, version: this.current.version };
  }

  /**
   * Sets the count only if the node is still at `expectedVersion` (from {@link getVersionedValue}).
   * Resolves `false` when someone changed it first; read the new value and decide again.
   */
  async trySetCount(newCount: number, expectedVersion: number): Promise<boolean> {
    const value = parseOptions(int32, newCount, 'SharedCount.trySetCount');
    try {
      const stat = await this.session.setData(this.path, encodeCount(value), expectedVersion);
      this.apply(value, stat.version, stat.mzxid);
      return true;
    } catch (err) {
      if (isZkError(err, 'BAD_VERSION')) {
        await this.refresh();
        return false;
      }
      throw err;
    }
  }

  /** Sets the count whatever its current value. */
  async setCount(newCount: number): Promise<void> {
    const value = parseOptions(int32, newCount, 'SharedCount.setCount');
    const stat = await this.session.setData(this.path, encodeCount(value));
    this.apply(value, stat.version, stat.mzxid);
  }

  /**
   * Stops following the node (the node stays): its watches go from the session and from the
   * server, so a closed count costs nothing, however many are made and closed on one session.
   */
  close(): void {
    this.closed = true;
    this.session.off('connected', this.onConnected);
    for (const watcher of this.watchers) this.session.removeWatches(this.path, watcher);
    this.watchers.clear();
  }

  /** A watcher that is forgotten once it fires, and removed by {@link close} until then. */
  private watcher(then: () => void): () => void {
    const watcher = (): void => {
      this.watchers.delete(watcher);
      then();
    };
    // Noted the moment it is read, before the events read after it are acted on.
    const noted = Object.assign(watcher, { onArrival: () => void (this.changeArrived = true) });
    this.watchers.add(noted);
    return noted;
  }

  private async doStart(): Promise<void> {
    try {
      await this.session.create(this.path, encodeCount(this.seedValue), { mode: 'persistent' });
    } catch (err) {
      if (isZkError(err, 'NO_NODE')) {
        await this.session.mkdirp(parentOf(this.path), 'persistent');
        return this.doStart();
      }
      if (!isZkError(err, 'NODE_EXISTS')) throw err;
      // Made by someone else: whoever may write it may raise the count (docs/security.md, "ACLs").
      await checkSharedNodeAcl(this.session, this.path, 'SharedCount');
    }
    this.session.on('connected', this.onConnected);
    await this.readAndWatch();
  }

  private async refresh(): Promise<void> {
    try {
      await this.readAndWatch();
    } catch (err) {
      if (isZkError(err, 'CONNECTION_LOSS') || isZkError(err, 'SESSION_LOST') || isZkError(err, 'SESSION_CLOSED')) return;
      this.emit('error', err instanceof Error ? err : new Error(String(err)));
    }
  }

  private async readAndWatch(): Promise<void> {
    if (this.closed) return;
    try {
      const arm = !this.watchArmed;
      this.watchArmed = true;
      const watcher = arm
        ? this.watcher(() => {
            this.watchArmed = false;
            void this.refresh();
          })
        : undefined;
      let found: { data: Buffer; stat: { version: number; mzxid: bigint } };
      try {
        found = await this.session.getData(this.path, watcher);
      } catch (err) {
        if (watcher !== undefined) {
          this.watchArmed = false; // no watch was set
          this.watchers.delete(watcher);
        }
        throw err;
      }
      if (this.closed && watcher !== undefined) {
        // Closed while the read was out: its watch was set after close() looked.
        this.watchers.delete(watcher);
        this.session.removeWatches(this.path, watcher);
        return;
      }
      const { data, stat } = found;
      const value = decodeCount(data);
      if (value === null) throw new InvalidArgumentError(`SharedCount ${this.path}: node data is not a 4-byte count`);
      this.apply(value, stat.version, stat.mzxid);
    } catch (err) {
      if (!isZkError(err, 'NO_NODE')) throw err;
      // Deleted: an exists watch tells us when it is back.
      const stat = await this.session.exists(
        this.path,
        this.watcher(() => void this.refresh()),
      );
      if (stat !== null) await this.readAndWatch();
      else this.settled(); // gone: the last value stays until the node is back
    }
  }

  /** The value is as current as the last event read: a pending change (if any) is settled. */
  private settled(): void {
    if (!this.changeArrived) return;
    this.changeArrived = false;
    this.tellSettled();
  }

  private tellSettled(): void {
    for (const listener of [...this.settledListeners]) listener();
  }

  /** Keeps the newest value (replies of overlapping reads may arrive in any order of our awaits). */
  private apply(value: number, version: number, mzxid: bigint): void {
    // A reply read after a change's event reflects that change (the server sends the event first).
    if (this.current !== undefined && mzxid <= this.current.mzxid) return this.settled();
    const changed = this.current === undefined || this.current.value !== value;
    const first = this.current === undefined;
    this.current = { value, version, mzxid };
    if (!changed || first) return this.settled();
    this.changeArrived = false;
    this.emit('changed', value);
    this.tellSettled();
  }
}
