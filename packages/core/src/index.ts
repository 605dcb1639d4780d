/**
 * @zk-recipes/core: the ZooKeeper session, retry policies, node-name helpers, the predecessor
 * watcher and the lock-queue engine that every zk-recipes recipe is built on.
 */
export * from './errors.js';
export * from './validation.js';
export * from './session/index.js';
export * from './retry/index.js';
export * from './nodes/index.js';
export { waitUntilGone, type NodeWaitOutcome } from './watch/waitUntilGone.js';
export { listAndWatchChildren } from './watch/waitForChildrenChange.js';
export { decideWithHints, exclusiveRule, MAX_ANY_OF_WATCHES, withoutHints, type Decision, type HintedDecision, type Hints, type OrderingRule } from './queue/OrderingRule.js';
export { LockQueue, type EnterOptions, type LockQueueOptions } from './queue/LockQueue.js';
export type { DirectoryRecord } from './queue/directoryRecord.js';
export type { QueueNode, QueueSeat } from './queue/QueueSeat.js';
export { REVOCATION_MARKER, isRevocationRequest, requestRevocation } from './queue/revocation.js';
export { keepPlaceAfterLeaving } from './queue/localSeats.js';
export { StopSignal } from './queue/stopSignal.js';
export { parseAcquireOptions, type AcquireOptions } from './queue/acquireOptions.js';
export { OwnerFrame, currentFrame, continueInFrame, runInFrame } from './context/ownerContext.js';
export { QueueLock, type Acquisition, type LockEvents, type QueueLockConfig } from './lock/QueueLock.js';
export type { LockHandle } from './lock/LockHandle.js';
/** @internal `withLock` and `await using` for the recipes' own handles (multi-lock, semaphore lease). */
export { disposeHandle, runThenRelease } from './lock/releaseAfter.js';
/** @internal the recipes' compile-time checks that a schema accepts exactly its public type. */
export type { AssertTrue, TypesEqual } from './support/typeEquality.js';
