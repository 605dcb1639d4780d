import { EventEmitter } from 'eventemitter3';
import { assertSession } from '../engine/LockQueue.js';
import { NotOwnerError } from '../errors.js';
import { lockKeyName } from '../nodes/lockKeys.js';
import { joinPath, validateLockPath } from '../nodes/paths.js';
import type { ZkSession } from '../session/ZkSession.js';
import type { AcquireOptions } from './acquireTypes.js';
import { heldLocksRelayOf, type ConnectionNewsListener, type HeldLocksRelay } from './heldLocksRelay.js';
import type { LockHandle } from './LockHandle.js';
import type { LockSetMember } from './lockSetMember.js';
import type { QueueLock } from './QueueLock.js';

/** Events a lock set emits while it holds some key in this process. */
export interface LockSetEvents {
  /** The connection dropped: until `reconnected`, no key's holder can be sure it still holds it. */
  suspended: () => void;
  /** The same ZooKeeper session is back: every key held is still held. */
  reconnected: () => void;
  /**
   * The lock of `key` is gone: the session was lost (emitted once for each key held then; every
   * handle's `signal` is aborted), or someone else deleted the holder's node (`NODE_DELETED`).
   */
  lost: (reason: Error, key: string) => void;
}

/** How a recipe configures a {@link QueueLockSet}. */
export interface QueueLockSetConfig<L extends QueueLock> {
  /** The session every key's lock is made in. */
  session: ZkSession;
  /** The base path: each key's lock directory is a child of it. */
  path: string;
  /** Used in error messages, e.g. `MutexSet`. */
  name: string;
  /** Makes the lock of one key's directory, a member of the set (pass `member` in its config). */
  makeLock: (path: string, member: LockSetMember | undefined) => L;
  /** How many locks of keys neither held nor awaited are kept for reuse (0: dropped when idle). */
  maxIdleLocks: number;
  /** Whether a key's directory is deleted (best effort) each time its key becomes idle here. */
  deleteIdleDirectories: boolean;
}

/**
 * One key's lock in the set, and the set's bookkeeping of it: what its lock tells the set (as a
 * {@link LockSetMember}), and its place in the list of idle keys, oldest first.
 */
class Entry<L extends QueueLock> implements LockSetMember {
  /** Its lock; made right after the entry (the lock takes the entry as its member). */
  lock!: L;
  /** In the idle list. */
  isIdle = false;
  /** The idle entry used before this one. */
  older: Entry<L> | undefined;
  /** The idle entry used after this one. */
  newer: Entry<L> | undefined;

  constructor(
    private readonly set: SetBookkeeping<L>,
    readonly key: string,
  ) {}

  join(): void {
    this.set.held(this);
  }
  leave(): void {
    this.set.released(this);
  }
  idle(): void {
    this.set.idle(this);
  }
  nodeDeleted(reason: Error): void {
    this.set.nodeDeleted(this, reason);
  }
}

/** One of the calls an acquisition makes on a key's lock (see `QueueLockSet.callOn`). */
type LockCall<T, F> = (lock: QueueLock, options: AcquireOptions | undefined, fn: F) => Promise<T>;
const ACQUIRE: LockCall<LockHandle, undefined> = (lock, options) => lock.acquire(options);
const TRY_ACQUIRE: LockCall<LockHandle | null, undefined> = (lock, options) => lock.tryAcquire(options);
const WITH_LOCK: LockCall<unknown, (handle: LockHandle) => unknown> = (lock, options, fn) => lock.withLock(fn, options);

/** What an entry tells its set. */
interface SetBookkeeping<L extends QueueLock> {
  held(entry: Entry<L>): void;
  released(entry: Entry<L>): void;
  idle(entry: Entry<L>): void;
  nodeDeleted(entry: Entry<L>, reason: Error): void;
}

/**
 * A lock per key under one base path, without bookkeeping by the caller (docs/mutex.md, "Locks
 * per key"): each key's lock is the recipe's own lock on `<base>/<encoded key>`
 * (`encodeLockKey`), made when the key is first acquired, kept while some async context of
 * this process holds or awaits it, then kept idle for reuse up to `maxIdleLocks` keys (least
 * recently used dropped first). Ownership and re-entrancy are the key's lock's own. The set
 * relays the session's news once for all its keys, and adds nothing to an acquisition but a map
 * lookup: no request, no allocation on a key whose lock is kept.
 */
export class QueueLockSet<L extends QueueLock = QueueLock> extends EventEmitter<LockSetEvents> {
  /** The base path. */
  readonly path: string;
  private readonly config: QueueLockSetConfig<L>;
  /** Every key's lock kept: held, awaited, or idle (then also in the idle list). */
  private readonly entries = new Map<string, Entry<L>>();
  /** The idle list's oldest and newest entries. */
  private oldestIdle: Entry<L> | undefined;
  private newestIdle: Entry<L> | undefined;
  private idleCount = 0;
  /** The keys some async context of this process holds. */
  private readonly heldEntries = new Set<Entry<L>>();
  private readonly relay: HeldLocksRelay;
  private readonly bookkeeping: SetBookkeeping<L> = {
    held: (entry) => {
      this.heldEntries.add(entry);
      if (this.heldEntries.size === 1) this.relay.join(this.news);
    },
    released: (entry) => {
      if (this.heldEntries.delete(entry) && this.heldEntries.size === 0) this.relay.leave(this.news);
    },
    idle: (entry) => this.entryIdle(entry),
    nodeDeleted: (entry, reason) => this.emit('lost', reason, entry.key),
  };
  /** Hears the session's connection news while the set holds any key. */
  private readonly news: ConnectionNewsListener = {
    suspended: () => this.emit('suspended'),
    reconnected: () => this.emit('reconnected'),
    lost: (reason) => {
      for (const entry of [...this.heldEntries]) this.emit('lost', reason, entry.key);
    },
  };

  constructor(config: QueueLockSetConfig<L>) {
    super();
    assertSession(config.session);
    this.config = config;
    this.path = validateLockPath(config.path, `${config.name}: base path`);
    this.relay = config.session.scope.get(heldLocksRelayOf);
  }

  /** How many keys' locks are in memory: those held or awaited in this process, and up to `maxIdleLocks` idle ones. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Waits until the lock of `key` is ours and returns a handle; re-enters at once if the calling
   * async context holds it already (see the key's lock's `acquire`).
   */
  acquire(key: string, options?: AcquireOptions): Promise<LockHandle> {
    return this.callOn(key, 'acquire', ACQUIRE, options, undefined);
  }

  /** Like {@link acquire}, but `null` instead of `LOCK_TIMEOUT`; `timeoutMs` defaults to 0. */
  tryAcquire(key: string, options?: AcquireOptions): Promise<LockHandle | null> {
    return this.callOn(key, 'tryAcquire', TRY_ACQUIRE, options, undefined);
  }

  /** Acquires `key`, runs `fn` with the handle, always releases; returns what `fn` returns. */
  withLock<T>(key: string, fn: (handle: LockHandle) => T | Promise<T>, options?: AcquireOptions): Promise<T> {
    return this.callOn(key, 'withLock', WITH_LOCK as LockCall<T, (handle: LockHandle) => T | Promise<T>>, options, fn);
  }

  /** Releases the calling async context's innermost acquisition of `key`; `NOT_OWNER` if it holds none. */
  release(key: string): Promise<void> {
    let entry: Entry<L> | undefined;
    try {
      entry = this.existingEntry(key, 'release');
    } catch (err) {
      return Promise.reject(err);
    }
    if (entry === undefined) {
      return Promise.reject(new NotOwnerError(`${this.config.name}.release: key ${JSON.stringify(key)} is not held by this async context; release through the handle acquire() returned: handle.release()`));
    }
    return entry.lock.release();
  }

  /** True if some async context of this process holds `key` through this set. */
  isAcquiredInThisProcess(key: string): boolean {
    return this.existingEntry(key, 'isAcquiredInThisProcess')?.lock.isAcquiredInThisProcess() ?? false;
  }

  /** True if the calling async context holds `key`. */
  isOwnedByCurrentContext(key: string): boolean {
    return this.existingEntry(key, 'isOwnedByCurrentContext')?.lock.isOwnedByCurrentContext() ?? false;
  }

  /** Full paths of `key`'s contenders' nodes (every process's), sorted: the holder first. */
  getParticipantNodes(key: string): Promise<string[]> {
    try {
      const entry = this.existingEntry(key, 'getParticipantNodes');
      // A key not kept here is read through a lock made for this call, and not kept.
      return (entry?.lock ?? this.config.makeLock(this.pathOf(key), undefined)).getParticipantNodes();
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * The full path of `key`'s lock directory: `<base>/<encoded key>` (docs/mutex.md, "Key encoding").
   * @throws InvalidArgumentError (`INVALID_ARGUMENT`) for an invalid key
   */
  pathOf(key: string): string {
    return joinPath(this.path, lockKeyName(key, `${this.config.name}.pathOf`));
  }

  /** The kept entry of `key`, or `undefined` (a key not kept is checked, so that a bad one throws). */
  private existingEntry(key: string, method: string): Entry<L> | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) lockKeyName(key, `${this.config.name}.${method}`);
    return entry;
  }

  /** The entry of `key`, made if needed, out of the idle list: an acquisition is about to use it. */
  private entryFor(key: string, method: string): Entry<L> {
    let entry = this.entries.get(key);
    if (entry === undefined) {
      const path = joinPath(this.path, lockKeyName(key, `${this.config.name}.${method}`));
      entry = new Entry(this.bookkeeping, key);
      entry.lock = this.config.makeLock(path, entry);
      this.entries.set(key, entry);
    } else if (entry.isIdle) {
      this.unlinkIdle(entry);
    }
    return entry;
  }

  /**
   * `call` on the lock of `key`, kept out of the idle list meanwhile; an acquisition that did not
   * start (options refused) leaves it idle again. A call is a function made once, not per call.
   */
  private callOn<T, F>(key: string, method: string, call: LockCall<T, F>, options: AcquireOptions | undefined, fn: F): Promise<T> {
    let entry: Entry<L>;
    try {
      entry = this.entryFor(key, method);
    } catch (err) {
      return Promise.reject(err);
    }
    const result = call(entry.lock, options, fn);
    if (!entry.lock.busy && !entry.isIdle) this.entryIdle(entry);
    return result;
  }

  /** `entry`'s lock holds and awaits nothing: to the idle list (the oldest idle ones out beyond the bound). */
  private entryIdle(entry: Entry<L>): void {
    if (this.entries.get(entry.key) !== entry || entry.isIdle) return;
    if (this.config.deleteIdleDirectories) this.deleteDirectory(entry.lock.path);
    entry.isIdle = true;
    entry.older = this.newestIdle;
    entry.newer = undefined;
    if (this.newestIdle === undefined) this.oldestIdle = entry;
    else this.newestIdle.newer = entry;
    this.newestIdle = entry;
    this.idleCount++;
    while (this.idleCount > this.config.maxIdleLocks) {
      const oldest = this.oldestIdle!;
      this.unlinkIdle(oldest);
      this.entries.delete(oldest.key);
    }
  }

  private unlinkIdle(entry: Entry<L>): void {
    if (entry.older === undefined) this.oldestIdle = entry.newer;
    else entry.older.newer = entry.newer;
    if (entry.newer === undefined) this.newestIdle = entry.older;
    else entry.newer.older = entry.older;
    entry.older = undefined;
    entry.newer = undefined;
    entry.isIdle = false;
    this.idleCount--;
  }

  /**
   * Deletes an idle key's directory, best effort: refused while it has any child (another
   * process's node), and a contender whose create finds it gone makes it again
   * (docs/mutex.md, "Directories").
   */
  private deleteDirectory(path: string): void {
    this.config.session.delete(path).catch(() => undefined);
  }
}
