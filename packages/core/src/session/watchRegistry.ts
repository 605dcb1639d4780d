/**
 * Watch multiplexing. The wire client keeps one Node EventEmitter per watched path and adds one
 * listener per registration, so 10,000 waiters on one node would stack 10,000 listeners (and trip
 * MaxListeners). We register ONE wire-level watcher per (kind, path) and fan out to our own sets.
 * Callbacks are delivered outside the wire client's socket handler, and a throwing callback is
 * caught and reported (never an uncaught exception).
 */
import type { WatchEvent, Watcher } from './types.js';

/** data: getData / exists on an existing node; exist: exists on a missing node; child: getChildren. */
export type WatchKind = 'data' | 'exist' | 'child';

export class WatchRegistry {
  private readonly sets = new Map<string, { kind: WatchKind; path: string; watchers: Set<Watcher> }>();
  private dropped = false;

  /**
   * @param onError receives what a watcher threw
   */
  constructor(private readonly onError: (err: Error) => void) {}

  /**
   * Adds a watcher for (kind, path). Returns a wire-level dispatcher when this is the first
   * watcher of that key (the caller registers it with the wire client), or null when the key
   * already has one registered.
   */
  add(kind: WatchKind, path: string, watcher: Watcher): ((event: WatchEvent) => void) | null {
    if (this.dropped) return null;
    const key = `${kind}\u0000${path}`;
    const existing = this.sets.get(key);
    if (existing) {
      existing.watchers.add(watcher);
      return null;
    }
    const entry = { kind, path, watchers: new Set<Watcher>([watcher]) };
    this.sets.set(key, entry);
    return (event) => {
      // The wire fires each registration once; take this key's set so later adds start afresh.
      if (this.sets.get(key) === entry) this.sets.delete(key);
      if (this.dropped) return;
      this.deliver(entry.watchers, event);
    };
  }

  /**
   * Forgets `watcher` on `path` (every kind). The wire-level watch stays until it fires (ZooKeeper
   * 3.8 has no cheap way to remove one), but it then has nobody to call: an abandoned wait costs
   * nothing that grows.
   */
  remove(path: string, watcher: Watcher): void {
    for (const kind of ['data', 'exist', 'child'] as const) this.sets.get(`${kind}\u0000${path}`)?.watchers.delete(watcher);
  }

  private deliver(watchers: Set<Watcher>, event: WatchEvent): void {
    // setImmediate: outside the socket handler and after the promise reactions of the replies
    // that arrived in the same chunk.
    setImmediate(() => {
      if (this.dropped) return;
      for (const w of watchers) {
        try {
          w(event);
        } catch (err) {
          this.onError(err instanceof Error ? err : new Error(String(err)));
        }
      }
    });
  }

  /** Number of (kind, path) keys with a wire-level watcher outstanding. */
  get keys(): number {
    return this.sets.size;
  }

  /** Number of user watchers outstanding. */
  get watchers(): number {
    let n = 0;
    for (const e of this.sets.values()) n += e.watchers.size;
    return n;
  }

  /** Drops every watch (on `lost`: callers rely on the session signal instead). */
  dropAll(): void {
    this.dropped = true;
    this.sets.clear();
  }
}
