/**
 * The names this package records under: a stable set, documented in docs/observability.md
 * ("OpenTelemetry"). Dashboards and alerts are written against them: add, never rename.
 */

/** Instrument names (OpenTelemetry naming: a `zk_recipes` namespace, dots between components). */
export const METRIC_NAMES = {
  /** Histogram, ms: how long an acquisition took, from its call to its outcome. */
  acquireDuration: 'zk_recipes.lock.acquire.duration',
  /** Histogram, ms: how long a lock was held, from its grant to its release or loss. */
  holdDuration: 'zk_recipes.lock.hold.duration',
  /** Counter, `{acquisition}`: finished acquisitions, by outcome. */
  acquisitions: 'zk_recipes.lock.acquisitions',
  /** Counter, `{loss}`: held locks lost (their handle's signal aborted), by code. */
  losses: 'zk_recipes.lock.losses',
  /** UpDownCounter, `{waiter}`: acquisitions in progress (+1 at the call, -1 at its outcome). */
  waiters: 'zk_recipes.lock.waiters',
  /** Counter, `{change}`: session state changes, by the state entered. */
  sessionStateChanges: 'zk_recipes.session.state_changes',
  /** UpDownCounter, `{leader}`: elections this process leads now (+1 when gained, -1 when it ends), by election. */
  leaders: 'zk_recipes.leadership.leaders',
  /** Counter, `{change}`: leadership gained, lost (taken away) and released (given up), by event and code. */
  leadershipChanges: 'zk_recipes.leadership.changes',
  /** Histogram, ms: how long a leadership lasted, from its grant to its loss or release. */
  leadershipDuration: 'zk_recipes.leadership.duration',
} as const;

/** Attribute keys on the instruments and the acquire span. */
export const ATTRIBUTE_NAMES = {
  /** `mutex`, `semaphore-mutex`, `read-lock`, `write-lock`, `semaphore`, `multi-lock`; elections: `leader-latch`, `leader-selector`. */
  recipe: 'zk_recipes.recipe',
  /** The lock's path, or what the `lockName` option made of it. */
  path: 'zk_recipes.path',
  /** Acquisitions: `granted`, `reentered`, `timeout`, `aborted`, `failed`; holds: `released`, `failed`, `lost`; leaderships: `lost`, `released`. */
  outcome: 'zk_recipes.outcome',
  /**
   * Losses: `SESSION_LOST`, `NODE_DELETED`, `SESSION_CLOSED`; a leadership's end also
   * `ELECTION_CLOSED`, `ABORTED` (given up).
   */
  lossCode: 'zk_recipes.loss.code',
  /** Leadership changes: `gained`, `lost` (taken away), `released` (given up). */
  leadershipEvent: 'zk_recipes.leadership.event',
  /** Session state changes: the state entered (`connected`, `suspended`, `reconnected`, `lost`, `closed`...). */
  sessionState: 'zk_recipes.session.state',
  /** Span only: `lock`, `read`, `write`, `lease`, `multi`. */
  kind: 'zk_recipes.kind',
  /** Span only: the full path of the acquisition's node. */
  node: 'zk_recipes.node',
  /** Span only: the fencing token, in decimal. */
  fencingToken: 'zk_recipes.fencing_token',
  /** Span only: the ZooKeeper session id, 16 hex digits. */
  sessionId: 'zk_recipes.session.id',
  /** Span only: how many leases a semaphore acquisition asked for. */
  leases: 'zk_recipes.leases',
  /** Span only, on failure: the error's code (OpenTelemetry's general `error.type`). */
  errorType: 'error.type',
} as const;

/**
 * Bucket advice for both duration histograms, in ms: from a re-entry's microseconds through a
 * contended wait's seconds to a batch job's hold of several minutes. A View overrides it.
 */
export const DURATION_BUCKETS_MS: readonly number[] = [1, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000, 300_000, 900_000];
