// The types of the acquire front-end (docs/architecture.md, "The acquire front-end"), apart from
// its code so that the traced path (acquireTrace.ts) and the front-end both use them.
import type { OwnerFrame } from '../context/ownerContext.js';
import type { DiagnosticsRecipe } from '../diagnostics/channels.js';

/** Options every acquire-like call accepts (mutex, read/write lock, semaphore, multi-lock). */
export interface AcquireOptions {
  /**
   * Give up after this many milliseconds (`LOCK_TIMEOUT`): a finite number from 0 to 2^31-1 (about
   * 24.8 days). Omit to wait as long as it takes. The promise settles within `SETTLE_SLACK_MS` of
   * the deadline whatever the server does; `0` is one look at the queue, if the server gives it
   * within that slack.
   */
  timeoutMs?: number | undefined;
  /**
   * Abort the wait (`ABORTED`), settled within `SETTLE_SLACK_MS` of the abort. Our queue node's
   * delete is sent before the promise settles (and done by then, unless the server is slower than
   * the slack: then it finishes in the background).
   */
  signal?: AbortSignal | undefined;
  /**
   * Called when someone asks the holder to release: Curator's revocation protocol (`__REVOKE__`
   * written to our node, e.g. by Curator's `Revoker` or `requestRevocation()`). Called in a later turn
   * than the grant, so the code after `await acquire()` has its handle; a request made while we
   * wait is told once, just after `acquire()` resolved. Releasing is up to you (through the
   * handle); nothing is released for you. If it throws, the error is the session's `error` event.
   */
  onRevoke?: (() => void) | undefined;
}

/** What a recipe's acquisition step started. */
export interface Started<H> {
  /**
   * The owner frame of a new holding, for a recipe owned by async context (docs/architecture.md,
   * "Ownership by async context"): the promise handed to the caller is tagged with it, so the
   * code after `await acquire()` is the holder. Absent for an answer known at once (a re-entry, a
   * refusal) and for recipes not owned by context (a semaphore's leases).
   */
  readonly frame?: OwnerFrame | undefined;
  /** Settles with the handle, or with why there is none. */
  readonly granted: Promise<H>;
}

/** A recipe's acquisition step: start one acquisition under already validated options. */
export type AcquireStep<H> = (options: AcquireOptions) => Started<H>;

/**
 * What a recipe tells the `zk-recipes:acquire` channel about its acquisitions (docs/observability.md,
 * "Diagnostics channels"). Made once per lock object; read only while someone subscribes.
 */
export interface AcquireSource {
  /** The recipe, as the channel names it. */
  readonly recipe: DiagnosticsRecipe;
  /** The lock directory (a multi-lock: its members', joined by `,`). */
  readonly path: string;
  /** The current ZooKeeper session id, 16 hex digits. */
  sessionId(): string;
  /** Whether an acquisition started now re-enters a holding of the calling context. */
  reenters?(): boolean;
}
