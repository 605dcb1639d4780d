import type { Stat } from '../session/types.js';
import type { ZkSession } from '../session/ZkSession.js';

/** A lock directory's children and its stat, as one `getChildren2` answered them. */
export interface Listing {
  children: string[];
  stat: Stat;
}

/** When a listing nobody is waiting for yet goes out. */
export type ListingWindow =
  /** After the calls of this synchronous run (the creates issued together). */
  | 'run'
  /** After this turn of the event loop (contenders woken together by one event or timer round). */
  | 'turn';

/** One listing not sent yet, and everyone waiting for it. */
class Batch {
  readonly reply: Promise<Listing>;
  resolve!: (listing: Listing) => void;
  reject!: (reason: unknown) => void;
  /** `reply`'s children, made once for every caller that wants only those. */
  private names: Promise<string[]> | undefined;

  constructor() {
    this.reply = new Promise<Listing>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.reply.catch(() => undefined); // each caller handles it
  }

  get children(): Promise<string[]> {
    if (this.names === undefined) {
      this.names = this.reply.then((listing) => listing.children);
      this.names.catch(() => undefined);
    }
    return this.names;
  }
}

const RESOLVED = Promise.resolve();

/** One directory's line: the listing in flight, and the batch that goes when it is answered. */
interface Line {
  inFlight: boolean;
  /** Waiting to be sent; while nothing is in flight, its send is scheduled. */
  next: Batch | undefined;
}

/**
 * The listings of one session's lock directories (docs/architecture.md, "Bounded recovery"): at
 * most one `getChildren` of a directory is in flight per session, whoever asks. A caller gets a
 * listing sent after its call: the one about to be sent, or, while one is in flight, the next,
 * sent the moment the one in flight is answered and shared by everyone who asked meanwhile. So a
 * burst that recovers from a connection blip, whatever was in flight and however the retry policy
 * spreads its retries, has at most one listing of the directory on the wire at a time, and the
 * number of listings grows with the recovery's duration, not with the number of acquisitions. On
 * an idle line a listing goes out at once (after the calls of its `window`): an uncontended
 * acquire still costs one round trip.
 */
export class DirectoryListings {
  private readonly lines = new Map<string, Line>();

  constructor(private readonly session: ZkSession) {}

  /**
   * The children of `dir` and its stat, from a listing sent after this call (see the class). Every
   * caller of one listing gets the same object: never modify it.
   */
  after(dir: string, window: ListingWindow): Promise<Listing> {
    return this.batchFor(dir, window).reply;
  }

  /** {@link after}, the children only (the same array for every caller). */
  childrenAfter(dir: string, window: ListingWindow): Promise<string[]> {
    return this.batchFor(dir, window).children;
  }

  private batchFor(dir: string, window: ListingWindow): Batch {
    let line = this.lines.get(dir);
    if (line === undefined) {
      line = { inFlight: false, next: undefined };
      this.lines.set(dir, line);
    }
    let batch = line.next;
    if (batch === undefined) {
      batch = new Batch();
      line.next = batch;
      if (!line.inFlight) {
        const scheduled = line;
        // A promise reaction, not queueMicrotask: the same queue, without the async resource
        // queueMicrotask makes for each call while async hooks are on (ownership tracking).
        if (window === 'run') void RESOLVED.then(() => this.send(dir, scheduled));
        else setImmediate(() => this.send(dir, scheduled));
      }
    }
    return batch;
  }

  private send(dir: string, line: Line): void {
    const batch = line.next!;
    line.next = undefined;
    line.inFlight = true;
    const answered = (): void => {
      line.inFlight = false;
      if (line.next !== undefined) this.send(dir, line);
      else this.lines.delete(dir);
    };
    this.session.getChildren(dir).then(
      (listing) => {
        answered();
        batch.resolve(listing);
      },
      (err: unknown) => {
        answered();
        batch.reject(err);
      },
    );
  }
}
