/**
 * Watch multiplexing. The wire client keeps one Node EventEmitter per watched path and adds one
 * listener per registration, so 10,000 waiters on one node would stack 10,000 listeners (and trip
 * MaxListeners). We register ONE wire-level watcher per (kind, path) and fan out to our own sets.
 * Callbacks are delivered outside the wire client's socket handler, and a throwing callback is
 * caught and reported (never an uncaught exception).
 */
import { SmallSet } from '../util/SmallSet.js';
import type { WatchEvent, Watcher } from './types.js';
import type { WireEvent } from './wire.js';

/** data: getData / exists on an existing node; exist: exists on a missing node; child: getChildren. */
export type WatchKind = 'data' | 'exist' | 'child';

/** The user watchers of one (kind, path): usually one (a waiter watching its predecessor). */
export class WatchEntry extends SmallSet<Watcher> {
  /** The one wire-level watcher registered for this key (set by the session). */
  wire: ((event: WireEvent) => void) | undefined;
  constructor(readonly key: string) {
    super();
  }
}

export class WatchRegistry {
  private readonly entries = new Map<string, WatchEntry>();
  /** Requests in flight that will set a watch on a key (see {@link takeIfIdle}). */
  private readonly arming = new Map<string, number>();
  private dropped = false;

  /**
   * @param onError receives what a watcher threw
   */
  constructor(private readonly onError: (err: Error) => void) {}

  /**
   * Adds a watcher for (kind, path). Returns the new entry when this is the first watcher of that
   * key (the caller registers ONE wire-level watcher that calls {@link fire} with it), or null when
   * the key already has one registered.
   */
  add(kind: WatchKind, path: string, watcher: Watcher): WatchEntry | null {
    if (this.dropped) return null;
    const key = keyOf(kind, path);
    const existing = this.entries.get(key);
    if (existing) {
      existing.add(watcher);
      return null;
    }
    const entry = new WatchEntry(key);
    entry.add(watcher);
    this.entries.set(key, entry);
    return entry;
  }

  /** The wire-level watch of `entry` fired (each registration fires once). */
  fire(entry: WatchEntry, event: WatchEvent): void {
    // Take this key's entry so later adds start afresh.
    if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
    if (this.dropped) return;
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
    for (const kind of ['data', 'exist', 'child'] as const) this.entries.get(keyOf(kind, path))?.delete(watcher);
  }

  /** A request that sets a watch on (kind, path) was sent; call {@link armEnded} when it settles. */
  armStarted(kind: WatchKind, path: string): void {
    const key = keyOf(kind, path);
    this.arming.set(key, (this.arming.get(key) ?? 0) + 1);
  }

  armEnded(kind: WatchKind, path: string): void {
    const key = keyOf(kind, path);
    const left = (this.arming.get(key) ?? 1) - 1;
    if (left > 0) this.arming.set(key, left);
    else this.arming.delete(key);
  }

  /**
   * Forgets `watcher` on (kind, path), and when it was the last of ours there and no request that
   * sets that watch is in flight, takes the entry out and returns it: the caller may then remove
   * the watch from the server without stranding anyone (a request in flight would set the watch
   * again after the removal, and its waiter would then never be told).
   */
  takeIfIdle(kind: WatchKind, path: string, watcher: Watcher): WatchEntry | null {
    const key = keyOf(kind, path);
    const entry = this.entries.get(key);
    if (entry === undefined) return null;
    entry.delete(watcher);
    if (entry.size > 0 || this.arming.has(key)) return null;
    this.entries.delete(key);
    return entry;
  }

  /** Number of (kind, path) keys with a wire-level watcher outstanding. */
  get keys(): number {
    return this.entries.size;
  }

  /** Number of user watchers outstanding. */
  get watchers(): number {
    let n = 0;
    for (const e of this.entries.values()) n += e.size;
    return n;
  }

  /** Drops every watch (on `lost`: callers rely on the session signal instead). */
  dropAll(): void {
    this.dropped = true;
    this.entries.clear();
    this.arming.clear();
  }
}

function keyOf(kind: WatchKind, path: string): string {
  return `${kind}\u0000${path}`;
}
