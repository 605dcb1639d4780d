/** A listing made with a child watch still armed: `changed` settles at the next change. */
export interface WatchedListing {
  children: string[];
  changed: Promise<void>;
}

/**
 * How one wait ended: we hold the lock; the node we waited for went as a holder
 * (`decideBehindIfHeld`: decide on the nodes behind it); here is a fresh listing (perhaps with a
 * child watch armed); or list again.
 */
export type WaitResult = 'held' | 'passed' | 'relist' | string[] | WatchedListing;

/** Where a wait reports how it ended: the waiting contender itself, or a promise's settle functions. */
export interface WaitSink {
  waited(result: WaitResult): void;
  waitFailed(reason: unknown): void;
  /** `relistIfTouched`: the wait ends because `name` was found at `version` when watched. */
  touchFound?(name: string, version: number): void;
}
