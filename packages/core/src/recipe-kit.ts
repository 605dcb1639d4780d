/**
 * `@zk-recipes/core/recipe-kit`: what the recipe packages are built from: the lock-queue engine
 * and its ordering rules, the acquire front-end, ownership by async context, node-name helpers,
 * watches, stop signals and deadlines, the diagnostics publishers, option parsing. For building
 * recipes, not for applications (which need only `@zk-recipes/core`): it follows semantic
 * versioning only within a 0.x minor version, so pin it with `~` (docs/packaging.md).
 *
 * @module @zk-recipes/core/recipe-kit
 */
export { parseOptions, type OptionsSchema, type ParsedBy } from './validation.js';
export type { AssertTrue, TypesEqual } from './support/typeEquality.js';
export { checkSharedNodeAcl } from './session/sharedNodeAcl.js';
export { RetryBudget } from './retry/RetryBudget.js';
export { policyName } from './retry/RetryPolicy.js';
export { abortableSleep } from './retry/retryLoop.js';
export { invalidCharIndex, joinPath, nameOf, parentOf, validateLockPath, validateNodeName, validatePath } from './nodes/paths.js';
export {
  PROTECTED_HEADER_LENGTH,
  PROTECTED_PREFIX,
  hasGuid,
  newProtectedName,
  protectionGuidOf,
  withoutProtection,
  type ProtectedName,
} from './nodes/protectedNames.js';
export { MAX_SEQUENCE, kindOf, sequenceOf, sortedChildren, type QueueEntry } from './nodes/sequence.js';
export { nodeDataOf } from './nodes/nodeData.js';
export { waitUntilGone, type NodeWaitOutcome } from './watch/NodeWatch.js';
export { listAndWatchChildren } from './watch/ChildrenWatch.js';
export { decideWithHints, exclusiveRule, MAX_ANY_OF_WATCHES, withoutHints, type Decision, type HintedDecision, type Hints, type OrderingRule } from './engine/OrderingRule.js';
export { LockQueue, keepPlaceAfterLeaving, type LockQueueOptions } from './engine/LockQueue.js';
export type { EnterOptions } from './engine/QueueOps.js';
export type { DirectoryRecord } from './engine/lockDirectory.js';
export type { QueueNode, QueueSeat } from './engine/ownNode.js';
export { sessionEnded } from './engine/sessionEnded.js';
export { StopSignal } from './signals/StopSignal.js';
export { settleByOf, settleWithin, type Bounded } from './signals/settleBound.js';
export { followFirst, type LinkedSignal } from './signals/followFirst.js';
export { OwnerFrame, OwnerHoldings, currentFrame, continueInFrame, runInFrame } from './context/ownerContext.js';
export { QueueLock, type Acquisition, type QueueLockConfig } from './lock/QueueLock.js';
export { SeatHandle } from './lock/SeatHandle.js';
export { QueueLockSet, type QueueLockSetConfig } from './lock/QueueLockSet.js';
export type { LockSetMember } from './lock/lockSetMember.js';
export type { ConnectionNewsListener } from './lock/heldLocksRelay.js';
export { acquireVia, parseAcquireOptions, tryAcquireVia, withLockVia, type AcquireSource, type AcquireStep, type Started } from './lock/acquireFrontEnd.js';
export { Deadline } from './lock/Deadline.js';
export { pauseAfterLostSession } from './lock/pauseAfterLostSession.js';
export { disposeHandle, runThenRelease } from './lock/releaseAfter.js';
export { leadershipChannel, lostChannel, publishLeadership, publishLost, publishRelease, releaseChannel, type HeldNode, type LeadershipNode } from './diagnostics/channels.js';
