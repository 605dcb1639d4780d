import { hostname } from 'node:os';
import { encodeOwnerData, kindOf, protectionGuidOf, sortedChildren, withoutProtection, type QueueEntry } from '../nodes/index.js';
import type { ZkSession } from '../session/ZkSession.js';
import { abortFanOutOf, type AbortFanOut } from '../signals/StopSignal.js';
import { Suspensions } from '../watch/NodeWatch.js';
import { DirectoryListings, type ListingWindow } from './DirectoryListings.js';
import type { LocalSeatState } from './ownNode.js';

/** A listing sorted by sequence, with each name's index. */
export interface SortedQueue {
  queue: QueueEntry[];
  indexOf: Map<string, number>;
}

/** The engine's slot of a session's scope (see `SessionScope`): made on first use, one per session. */
export const engineScopeOf = (session: ZkSession): EngineScope => new EngineScope(session);

/**
 * What the lock-queue engine knows per session (docs/architecture.md, "Per-session state"): this
 * process's own queue nodes, the session's fan-outs, and the listings shared by its contenders.
 * Each `LockQueue` takes it from its session once and hands it down to what it builds; nothing of
 * it lives in a module-level map.
 */
export class EngineScope {
  /**
   * The queue nodes this process created in this session, by full path. A waiter whose
   * predecessor is one of them can tell, when that node goes, whether it went as a holder (so, for
   * an exclusive rule, nobody else is ahead any more) or left the queue early — without listing the
   * directory again. That turns a drain of N local waiters from O(N²) listing traffic into O(N).
   *
   * The waiter still learns of the going from the server (its watch), never from the holder's
   * code: the server tells our session the deletion of our own node, if someone else deleted it,
   * before that event, and a grant requires our node (see `OwnNodeWatch`).
   */
  readonly seats = new Map<string, LocalSeatState>();
  /** Every stop of this session follows the session's (and callers') signals through this. */
  readonly fanOut: AbortFanOut;
  /** Waits told at the session's next `suspended`. */
  readonly suspensions: Suspensions;
  /**
   * What a queue node says when its recipe was given no `data`: this process and the session's
   * `label` (docs/observability.md, "Owner data"). Encoded once per session, shared by every node.
   */
  readonly ownerData: Uint8Array;
  /** The session's listings of its lock directories: at most one of a directory in flight. */
  readonly listings: DirectoryListings;
  /** Listings sorted once for every contender that decides on them (see {@link sortedQueueOf}). */
  private readonly sorted = new WeakMap<readonly string[], SortedQueue>();
  /** Names in a listing by the GUID of their protected name (lower case), built once per listing. */
  private readonly guidIndexes = new WeakMap<readonly string[], Map<string, string[]>>();

  constructor(readonly session: ZkSession) {
    this.fanOut = session.scope.get(abortFanOutOf);
    this.suspensions = new Suspensions(session);
    this.listings = new DirectoryListings(session);
    this.ownerData = encodeOwnerData({ host: hostname(), pid: process.pid, label: session.options.label });
  }

  /** The data of a queue node whose recipe was given `data` (or none: then the owner data). */
  nodeData(data: Uint8Array | null | undefined): Uint8Array {
    return data ?? this.ownerData;
  }

  /**
   * Marks our queue node at `path` as one whose place stays taken after it goes (see
   * {@link LocalSeatState.keepsPlace}): a local waiter behind it then lists again when it goes,
   * rather than taking its going for the lock's release. Call before the node that keeps the place
   * is created.
   */
  keepPlace(path: string): void {
    const state = this.seats.get(path);
    if (state !== undefined) state.keepsPlace = true;
  }

  /**
   * The children of lock directory `dir`, from a listing sent after this call and shared by every
   * contender of this session that asks before it is sent (docs/architecture.md, "Bounded recovery").
   * It goes out in the next turn of the event loop, or once the listing of `dir` in flight is
   * answered, so contenders woken together (by one reconnection, one batch of events, one round of
   * retry timers) send one `getChildren`, not one each: ten thousand contenders recovering in a
   * directory of ten thousand nodes would otherwise ask the server for 10^8 names at once. Every
   * caller gets the same array: never modify it.
   *
   * `window` 'run': sent once this synchronous run is over instead (no turn of the event loop
   * lost): for a waiter woken by an event, whose fellow waiters woken by the same event are told
   * in the same run.
   */
  nextListing(dir: string, window: ListingWindow = 'turn'): Promise<string[]> {
    return this.listings.childrenAfter(dir, window);
  }

  /**
   * `children` sorted by sequence. Waiters enqueued together share one listing (one array
   * object); sorting it once for all of them keeps N local waiters at O(N log N) work instead of
   * O(N² log N).
   */
  sortedQueueOf(children: readonly string[]): SortedQueue {
    let sorted = this.sorted.get(children);
    if (sorted === undefined) {
      const queue = sortedChildren(children);
      const indexOf = new Map<string, number>();
      for (let i = 0; i < queue.length; i++) indexOf.set(queue[i]!.name, i);
      sorted = { queue, indexOf };
      this.sorted.set(children, sorted);
    }
    return sorted;
  }

  /**
   * The names in `children` that sequential creates of `protectedName` (`_c_<guid>-<kind>`) made:
   * its GUID and its kind, then a sequence. A create's nodes, found again after its reply was
   * lost, or applied late. A node of ours with the same GUID and another kind (a read/write
   * downgrade's read node) is not one of them.
   */
  namesCreatedAs(children: readonly string[], protectedName: string): readonly string[] {
    const guid = protectionGuidOf(protectedName);
    if (guid === null) return [];
    const kind = withoutProtection(protectedName);
    return this.namesWithGuid(children, guid).filter((name) => kindOf(name) === kind);
  }

  /** The names in `children` that carry `guid`. */
  namesWithGuid(children: readonly string[], guid: string): readonly string[] {
    let index = this.guidIndexes.get(children);
    if (index === undefined) {
      index = new Map();
      for (const name of children) {
        const found = protectionGuidOf(name)?.toLowerCase();
        if (found === undefined) continue;
        const names = index.get(found);
        if (names === undefined) index.set(found, [name]);
        else names.push(name);
      }
      this.guidIndexes.set(children, index);
    }
    return index.get(guid.toLowerCase()) ?? [];
  }
}
