/**
 * @zk-recipes/core: the ZooKeeper session, retry policies, node-name helpers, the predecessor
 * watcher and the lock-queue engine that every zk-recipes recipe is built on.
 */
export * from './errors.js';
export * from './validation.js';
export * from './session/index.js';
export * from './retry/index.js';
export * from './nodes/index.js';
export { waitUntilGone, type NodeWaitOutcome } from './watch/NodeWatch.js';
export { listAndWatchChildren } from './watch/ChildrenWatch.js';
export { decideWithHints, exclusiveRule, MAX_ANY_OF_WATCHES, withoutHints, type Decision, type HintedDecision, type Hints, type OrderingRule } from './engine/OrderingRule.js';
export { LockQueue, keepPlaceAfterLeaving, type LockQueueOptions } from './engine/LockQueue.js';
export type { EnterOptions } from './engine/QueueOps.js';
export type { DirectoryRecord } from './engine/lockDirectory.js';
export { requestRevocation, type QueueNode, type QueueSeat } from './engine/ownNode.js';
export { SETTLE_SLACK_MS, StopSignal } from './signals/StopSignal.js';
/** @internal A recipe made of several waits bounds its clean-up by its failure's settle-by moment. */
export { settleByOf, settleWithin, type Bounded } from './signals/settleBound.js';
export { OwnerFrame, currentFrame, continueInFrame, runInFrame } from './context/ownerContext.js';
export { parseAcquireOptions, type AcquireOptions } from './lock/acquireFrontEnd.js';
export { QueueLock, type Acquisition, type LockEvents, type QueueLockConfig } from './lock/QueueLock.js';
export type { LockHandle } from './lock/LockHandle.js';
/** @internal The acquire front-end for the recipes that are not a QueueLock (semaphore, multi-lock). */
export { acquireVia, tryAcquireVia, withLockVia, type AcquireSource, type AcquireStep, type Started } from './lock/acquireFrontEnd.js';
export {
  ACQUIRE_CHANNEL,
  LEADERSHIP_CHANNEL,
  LOST_CHANNEL,
  RELEASE_CHANNEL,
  SESSION_CHANNEL,
  type AcquireContext,
  type AcquireKind,
  type AcquireOutcome,
  type DiagnosticsRecipe,
  type LeadershipMessage,
  type LeadershipRecipe,
  type LostMessage,
  type ReleaseMessage,
  type SessionMessage,
} from './diagnostics/channels.js';
/** @internal The recipes' publishers of releases and losses (semaphore leases). */
export { lostChannel, publishLost, publishRelease, releaseChannel } from './diagnostics/channels.js';
/** @internal The election recipes' publisher of leadership gained and ended. */
export { leadershipChannel, publishLeadership, type LeadershipNode } from './diagnostics/channels.js';
/** @internal One deadline over several waits (semaphore, multi-lock; public again in multi-lock). */
export { Deadline } from './lock/Deadline.js';
/** @internal A signal that aborts with the first of several, undone explicitly (semaphore, multi-lock). */
export { followFirst, type LinkedSignal } from './signals/followFirst.js';
/** @internal Whether a session ended: a node of ours read as deleted just before its end is that end. */
export { sessionEnded } from './engine/sessionEnded.js';
/** @internal The pause before an acquisition made of several waits starts again on a new session (semaphore). */
export { pauseAfterLostSession } from './lock/pauseAfterLostSession.js';
/** @internal Ownership by async context of a lock's acquisitions (multi-lock). */
export { OwnerHoldings } from './context/ownerContext.js';
/** @internal `await using` for the recipes' own handles (multi-lock, semaphore lease). */
export { disposeHandle, runThenRelease } from './lock/releaseAfter.js';
/** @internal the recipes' compile-time checks that a schema accepts exactly its public type. */
export type { AssertTrue, TypesEqual } from './support/typeEquality.js';
