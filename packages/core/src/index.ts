/**
 * `@zk-recipes/core`: what an application needs beside the recipe packages: {@link ZkSession}
 * (connection states, a promise API in which no call hangs), the retry policies, the error classes
 * and their codes, the types every lock shares ({@link LockHandle}, {@link AcquireOptions},
 * {@link LockEvents}), revocation requests, owner data, and the diagnostics channels' names and
 * messages. What recipe packages are built from is in `@zk-recipes/core/recipe-kit`
 * (docs/packaging.md).
 *
 * @module @zk-recipes/core
 */
export * from './errors.js';
export * from './session/index.js';
export type { RetryPolicy } from './retry/RetryPolicy.js';
export { EXPONENTIAL_BACKOFF_MAX_RETRIES, exponentialBackoff, type ExponentialBackoffOptions } from './retry/exponentialBackoff.js';
export { boundedExponentialBackoff, type BoundedExponentialBackoffOptions } from './retry/boundedExponentialBackoff.js';
export { retryNTimes, type RetryNTimesOptions } from './retry/retryNTimes.js';
export { retryOneTime, type RetryOneTimeOptions } from './retry/retryOneTime.js';
export { retryUntilElapsed, type RetryUntilElapsedOptions } from './retry/retryUntilElapsed.js';
export { retryForever, type RetryForeverOptions } from './retry/retryForever.js';
export { sessionFailedRetryPolicy } from './retry/sessionFailedRetryPolicy.js';
export { isRetryableByDefault, runWithRetry, type RetryLoopOptions } from './retry/retryLoop.js';
export { REVOCATION_MARKER, isRevocationRequest } from './nodes/nodeData.js';
export { MAX_LOCK_KEY_NAME_LENGTH, decodeLockKey, encodeLockKey, lockKeyPath } from './nodes/lockKeys.js';
export { encodeOwnerData, parseOwnerData, type NodeOwner } from './nodes/ownerData.js';
export { requestRevocation } from './engine/revocation.js';
export { SETTLE_SLACK_MS } from './signals/StopSignal.js';
export type { AcquireOptions } from './lock/acquireTypes.js';
export type { LockEvents } from './lock/QueueLock.js';
export type { LockSetEvents } from './lock/QueueLockSet.js';
export type { LockHandle } from './lock/LockHandle.js';
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
