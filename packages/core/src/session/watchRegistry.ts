/**
 * Watch multiplexing. The wire client keeps one Node EventEmitter per watched path and adds one
 * listener per registration, so 10,000 waiters on one node would stack 10,000 listeners (and trip
 * MaxListeners). We register ONE wire-level watcher per (kind, path) and fan out to our own sets.
 * Callbacks are delivered outside the wire client's socket handler, and a throwing callback is
 * caught and reported (never an uncaught exception).
 */
import { SmallSet } from '../util/SmallSet.js';
import type { WatchEvent, Watcher } from './types.js';

/** data: getData / exists on an existing node; exist: exists on a missing node; child: getChildren. */
export type WatchKind = 'data' | 'exist' | 'child';

/** The user watchers of one (kind, path): usually one (a waiter watching its predecessor). */
export class WatchEntry extends SmallSet<Watcher> {
  constructor(readonly key: string) {
    super();
  }
}

export class WatchRegistry {
  private readonly entries = new Map<string, WatchEntry>();
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
    const key = `${kind}\u0000${path}`;
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
    for (const kind of ['data', 'exist', 'child'] as const) this.entries.get(`${kind}\u0000${path}`)?.delete(watcher);
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
  }
}
