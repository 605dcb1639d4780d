/**
 * Watch multiplexing. The wire client keeps one Node EventEmitter per watched path and adds one
 * listener per registration, so 10,000 waiters on one node would stack 10,000 listeners (and trip
 * MaxListeners). We keep ONE entry per (kind, path) for the server's one watch, and fan out to our
 * own sets. The wire client is left out altogether: notifications are decoded by the hardening
 * (`wireHardening.ts`) and handed to {@link WatchRegistry.notified}, and the table it keeps for
 * setting watches again after a reconnection is ours ({@link WireWatchTable}), so a watch costs
 * no emitter, no listener and no event object of the wire client's.
 * Callbacks are delivered outside the wire client's socket handler, and a throwing callback is
 * caught and reported (never an uncaught exception).
 */
import { SmallSet } from '../util/SmallSet.js';
import type { WatchEvent, Watcher } from './types.js';
import type { WireWatcherManager } from './wire.js';

/** data: getData / exists on an existing node; exist: exists on a missing node; child: getChildren. */
export type WatchKind = 'data' | 'exist' | 'child';

/**
 * The server's two watch tables: `data` holds the watches of getData and exists (on an existing
 * node or a missing one), `child` those of getChildren. REMOVE_WATCHES names one of them.
 */
export type WatchClass = 'data' | 'child';

const CLASS_KINDS: ReadonlyArray<[WatchClass, readonly WatchKind[]]> = [
  ['data', ['data', 'exist']],
  ['child', ['child']],
];

/** The user watchers of one (kind, path): usually one (a waiter watching its predecessor). */
export class WatchEntry extends SmallSet<Watcher> {
  constructor(
    readonly kind: WatchKind,
    readonly path: string,
  ) {
    super();
  }
}

/**
 * Which of a path's watches an event fires, as the server (and the wire client's WatcherManager)
 * fires them: a creation or a data change the data and existence watches, a deletion the data and
 * child watches, a change of children the child watch.
 */
const FIRED_BY: Readonly<Record<WatchEvent['type'], readonly WatchKind[]>> = {
  created: ['data', 'exist'],
  dataChanged: ['data', 'exist'],
  deleted: ['data', 'child'],
  childrenChanged: ['child'],
};

/** What one path has: its watches by kind, and the requests out that set one (see {@link WatchRegistry.arming}). */
class PathWatches {
  data: WatchEntry | undefined;
  exist: WatchEntry | undefined;
  child: WatchEntry | undefined;
  dataArms = 0;
  childArms = 0;

  get idle(): boolean {
    return this.data === undefined && this.exist === undefined && this.child === undefined && this.dataArms === 0 && this.childArms === 0;
  }
}

export class WatchRegistry {
  /** By path (one lookup, no key built per call). */
  private readonly paths = new Map<string, PathWatches>();
  /** How many (kind, path) entries there are. */
  private entryCount = 0;
  private dropped = false;

  /**
   * @param onError receives what a watcher threw
   */
  constructor(private readonly onError: (err: Error) => void) {}

  /**
   * Adds a watcher for (kind, path): the server set (or already had) that watch. The entry of a
   * key stands for the server's one watch until it fires.
   */
  add(kind: WatchKind, path: string, watcher: Watcher): void {
    if (this.dropped) return;
    let watches = this.paths.get(path);
    if (watches === undefined) {
      watches = new PathWatches();
      this.paths.set(path, watches);
    }
    let entry = watches[kind];
    if (entry === undefined) {
      entry = new WatchEntry(kind, path);
      watches[kind] = entry;
      this.entryCount++;
    }
    entry.add(watcher);
  }

  /** The server sent `event` (on `event.path`, without the chroot): fires the watches it ends. */
  notified(event: WatchEvent): void {
    const watches = this.paths.get(event.path);
    if (watches === undefined) return;
    for (const kind of FIRED_BY[event.type]) {
      const entry = watches[kind];
      if (entry === undefined) continue;
      // Taken, so later adds start afresh.
      watches[kind] = undefined;
      this.entryCount--;
      this.fire(entry, event);
    }
    this.prune(event.path, watches);
  }

  /** The server's watch of `entry` fired (each fires once). */
  private fire(entry: WatchEntry, event: WatchEvent): void {
    if (this.dropped || entry.size === 0) return; // nobody left to tell (a wait given up, or ours deleted)
    // Noted at once: a waiter granted on an event read in the same chunk as its own node's
    // deletion must already see that deletion when it decides (see OwnNodeWatch).
    for (const w of entry.toArray()) {
      if (w.onArrival === undefined) continue;
      try {
        w.onArrival(event);
      } catch (err) {
        this.onError(err instanceof Error ? err : new Error(String(err)));
      }
    }
    // setImmediate: outside the socket handler and after the promise reactions of the replies
    // that arrived in the same chunk.
    setImmediate(() => {
      if (this.dropped) return;
      for (const w of entry.toArray()) {
        // Removed meanwhile (a wait given up): not called.
        if (!entry.has(w)) continue;
        try {
          w(event);
        } catch (err) {
          this.onError(err instanceof Error ? err : new Error(String(err)));
        }
      }
    });
  }

  /**
   * Forgets `watcher` on `path` (every kind). The wire-level watch stays until it fires (ZooKeeper
   * 3.8 has no cheap way to remove one), but it then has nobody to call: an abandoned wait costs
   * nothing that grows.
   */
  remove(path: string, watcher: Watcher): void {
    const watches = this.paths.get(path);
    if (watches === undefined) return;
    watches.data?.delete(watcher);
    watches.exist?.delete(watcher);
    watches.child?.delete(watcher);
  }

  /**
   * A request that may set a watch of `watchClass` on `path` is out: until it settles (then
   * {@link disarm}), {@link takeIfIdle} leaves that watch alone (the reply would set it again after
   * a removal, and its waiter would never be told).
   */
  arming(watchClass: WatchClass, path: string): void {
    if (this.dropped) return;
    let watches = this.paths.get(path);
    if (watches === undefined) {
      watches = new PathWatches();
      this.paths.set(path, watches);
    }
    if (watchClass === 'data') watches.dataArms++;
    else watches.childArms++;
  }

  /** The request of an {@link arming} settled. */
  disarm(watchClass: WatchClass, path: string): void {
    const watches = this.paths.get(path);
    if (watches === undefined) return;
    if (watchClass === 'data') watches.dataArms = Math.max(0, watches.dataArms - 1);
    else watches.childArms = Math.max(0, watches.childArms - 1);
    this.prune(path, watches);
  }

  /**
   * Forgets `watcher` on `path` (every kind), and for each server-side watch class that it was the
   * last of ours on, with no request that sets such a watch in flight, takes the entries out and
   * returns them: the caller may then remove that watch from the server without stranding anyone
   * (a request in flight would set the watch again after the removal, and its waiter would then
   * never be told).
   */
  takeIfIdle(path: string, watcher: Watcher): Array<{ watchClass: WatchClass; entries: WatchEntry[] }> {
    const idle: Array<{ watchClass: WatchClass; entries: WatchEntry[] }> = [];
    const watches = this.paths.get(path);
    if (watches === undefined) return idle;
    for (const [watchClass, kinds] of CLASS_KINDS) {
      const found: WatchEntry[] = [];
      for (const kind of kinds) {
        const entry = watches[kind];
        if (entry === undefined) continue;
        entry.delete(watcher);
        found.push(entry);
      }
      const arms = watchClass === 'data' ? watches.dataArms : watches.childArms;
      if (found.length === 0 || found.some((entry) => entry.size > 0) || arms > 0) continue;
      for (const entry of found) {
        watches[entry.kind] = undefined;
        this.entryCount--;
      }
      idle.push({ watchClass, entries: found });
    }
    this.prune(path, watches);
    return idle;
  }

  /** Number of (kind, path) keys with a wire-level watcher outstanding. */
  get keys(): number {
    return this.entryCount;
  }

  /** The paths with a watch of `kind` on the server (set again after a reconnection). */
  pathsOf(kind: WatchKind): string[] {
    const paths: string[] = [];
    for (const [path, watches] of this.paths) if (watches[kind] !== undefined) paths.push(path);
    return paths;
  }

  /** Number of user watchers outstanding. */
  get watchers(): number {
    let n = 0;
    for (const watches of this.paths.values()) n += (watches.data?.size ?? 0) + (watches.exist?.size ?? 0) + (watches.child?.size ?? 0);
    return n;
  }

  /** Drops every watch (on `lost`: callers rely on the session signal instead). */
  dropAll(): void {
    this.dropped = true;
    this.paths.clear();
    this.entryCount = 0;
  }

  private prune(path: string, watches: PathWatches): void {
    if (watches.idle) this.paths.delete(path);
  }
}

/**
 * The wire client's `watcherManager`, replaced (ConnectionManager 1.1.3 asks it, when a new
 * connection is made, which watches to set again with SetWatches): the registry's entries, which
 * stand for the server's watches until they fire or are removed. Paths are without the chroot;
 * the wire client adds it when it writes SetWatches.
 */
export class WireWatchTable implements WireWatcherManager {
  constructor(private readonly registry: WatchRegistry) {}

  isEmpty(): boolean {
    return this.registry.keys === 0;
  }
  getDataWatcherPaths(): string[] {
    return this.registry.pathsOf('data');
  }
  getExistenceWatcherPaths(): string[] {
    return this.registry.pathsOf('exist');
  }
  getChildWatcherPaths(): string[] {
    return this.registry.pathsOf('child');
  }
}
