import { joinPath } from '../nodes/index.js';
import type { ZkSession } from '../session/ZkSession.js';
import type { Watcher } from '../session/types.js';
import type { StopListener, StopSignal } from '../signals/StopSignal.js';
import { CreationWatch, tellAsEvent, type CreationSink, type Suspensions } from '../watch/NodeWatch.js';

/** Where an {@link AnyOfWait} reports. */
export interface AnyOfSink {
  /** `name` is gone (deleted, or already gone when its watch was set). The wait goes on. */
  nodeGone(name: string): void;
  /** A node watched for creation exists: something is ahead of us now. The wait is over. */
  changedAhead(): void;
  /** The stop fired (its reason), or a watch could not be set. The wait is over. */
  anyOfFailed(reason: unknown): void;
}

/**
 * A wait for any of several nodes of one directory to go: a counting semaphore's waiter watching
 * its proof (the nearest nodes ahead holding too many leases for it), or a writer watching the
 * readers that hold ahead of it. Whichever goes wakes it.
 *
 * One deletion-only watch per node (a child watch on the node: the server fires it when the node
 * goes, never when its data changes, so a foreign write wakes no one; and it is not set on a node
 * already gone: nothing dangles). Each departure is reported as soon as it is known and the others
 * stay watched: nodes from a newer listing may join them ({@link add}). A wait given up removes
 * its watches from the server ({@link cancel}); one that ends in a grant leaves them to fire once,
 * unheard ({@link abandon}).
 */
export class AnyOfWait implements StopListener, CreationSink {
  private ended = false;
  /** Watched (or being watched) nodes by name, with the watcher of their current watch. */
  private readonly watching = new Map<string, Watcher>();
  /** Nodes watched for creation (`relistIfCreated`), by name. */
  private readonly creations = new Map<string, CreationWatch>();
  /** Creation watches whose node's absence is not confirmed yet. */
  private unconfirmed = 0;
  /** Ends the `suspended` subscription, if any. */
  private unsubscribe: (() => void) | undefined;
  /** Departures heard before every absence was confirmed: reported once they are. */
  private deferred: string[] | undefined;

  constructor(
    private readonly session: ZkSession,
    private readonly suspensions: Suspensions,
    private readonly dir: string,
    private readonly stop: StopSignal,
    private readonly sink: AnyOfSink,
  ) {}

  /**
   * Sets a watch on each of `names` (pipelined) and subscribes to the stop; with `appears`, first
   * an `exists` watch on each of those names (see `relistIfCreated`). Sent first, they are
   * answered first, and departures are held back until every absence is confirmed; after that, a
   * creation is told before any departure that follows it (both come as events, or a departure as
   * a reply handled after the events before it).
   */
  begin(names: readonly string[], appears: readonly string[] = []): void {
    this.stop.addStopListener(this);
    if (this.ended) return; // stopped already: nothing is sent (requests answer later, never in here)
    // After a reconnection the server tells replayed watches' deletions before creations: their
    // order no longer says which came first, so such a wait ends and the contender lists again.
    if (appears.length > 0) this.unsubscribe = this.suspensions.onSuspended(() => this.created());
    for (const name of appears) {
      const watch = new CreationWatch(this.session, joinPath(this.dir, name), this);
      this.creations.set(name, watch);
      this.unconfirmed++;
      watch.begin();
    }
    for (const name of names) this.arm(name);
  }

  /** Whether this wait watches every one of `names` for departure. */
  covers(names: readonly string[]): boolean {
    return names.every((name) => this.watching.has(name));
  }

  /** Whether this wait watches every one of `appears` for creation (a wait cannot add to them). */
  watchesForCreation(appears: readonly string[] = []): boolean {
    return appears.every((name) => this.creations.has(name));
  }

  /**
   * Watches `names` too (those not watched already), pipelined. Only names from a listing made
   * since {@link begin}: their departures are then told in order with the others'.
   */
  add(names: readonly string[]): void {
    if (this.ended) return;
    for (const name of names) if (!this.watching.has(name)) this.arm(name);
  }

  /** Ends the wait: nothing more is reported, and every watch still set is removed. */
  cancel(): void {
    if (!this.end()) return;
    this.unsubscribe?.();
    for (const [name, watcher] of this.watching) this.session.removeWatches(joinPath(this.dir, name), watcher);
    this.watching.clear();
    for (const watch of this.creations.values()) watch.cancel();
  }

  /**
   * Ends the wait, leaving the watches still set on the server: each fires once, told to no one
   * (its watcher sees the wait ended). For a grant, where removing them would cost a request each
   * and they fire at most once per node.
   */
  abandon(): void {
    if (!this.end()) return;
    this.unsubscribe?.();
    this.watching.clear();
    for (const watch of this.creations.values()) watch.cancel();
  }

  /** @internal A node watched for creation exists. */
  created(): void {
    if (this.ended) return;
    this.cancel();
    this.sink.changedAhead();
  }

  /**
   * @internal A node watched for creation was absent when its watch was set. (Never after the end:
   * {@link cancel} ends every creation watch first, and an ended one tells nothing.)
   */
  absent(): void {
    if (--this.unconfirmed > 0 || this.deferred === undefined) return;
    const deferred = this.deferred;
    this.deferred = undefined;
    for (const name of deferred) {
      if (this.ended) return;
      this.sink.nodeGone(name);
    }
  }

  /** @internal A creation watch's request failed (never after the end, as for {@link absent}). */
  creationWatchFailed(reason: unknown): void {
    this.cancel();
    this.sink.anyOfFailed(reason);
  }

  /** @internal The stop fired. */
  stopped(): void {
    if (this.ended) return;
    const reason = this.stop.reason;
    this.cancel();
    this.sink.anyOfFailed(reason);
  }

  private arm(name: string): void {
    const path = joinPath(this.dir, name);
    const watcher: Watcher = (event) => {
      if (this.ended || this.watching.get(name) !== watcher) return;
      if (event.type === 'deleted') this.gone(name);
    };
    this.watching.set(name, watcher);
    // `...IfExists`: a node already gone is an answer (null), which builds no error.
    this.session.getChildrenIfExists(path, watcher).then(
      (listing) => {
        if (listing === null) {
          // Already gone, and no watch was set, so nothing but the end can have replaced or
          // removed this one: told like the deletion event it stands for.
          if (this.ended) return;
          tellAsEvent(() => {
            if (!this.ended) this.gone(name);
          });
          return;
        }
        // Ended while the request was out: the watch it set has nobody to tell.
        if (this.ended) this.session.removeWatches(path, watcher);
      },
      (err: unknown) => {
        // No watch was set, so nothing but the end can have replaced or removed this one.
        if (this.ended) return;
        this.cancel();
        this.sink.anyOfFailed(err);
      },
    );
  }

  private gone(name: string): void {
    this.watching.delete(name);
    if (this.unconfirmed > 0) (this.deferred ??= []).push(name);
    else this.sink.nodeGone(name);
  }

  private end(): boolean {
    if (this.ended) return false;
    this.ended = true;
    this.stop.removeStopListener(this);
    return true;
  }
}
