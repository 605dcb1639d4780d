/**
 * `@zk-recipes/mutex`: distributed mutexes, in the manner of Curator's: {@link InterProcessMutex}
 * (fair, herd-free, re-entrant by async context, a fencing token with every grant) and
 * {@link InterProcessSemaphoreMutex}, the same lock without re-entrancy. Curator's node names, so
 * Java services using Curator exclude each other with Node services on one path (docs/mutex.md).
 *
 * @module @zk-recipes/mutex
 */
export { InterProcessMutex } from './InterProcessMutex.js';
export { InterProcessSemaphoreMutex } from './InterProcessSemaphoreMutex.js';
export { MutexSet } from './MutexSet.js';
export { MUTEX_KIND, type MutexOptions } from './options.js';
export { DEFAULT_MAX_IDLE_LOCKS, type MutexSetOptions } from './mutexSetOptions.js';
export type { LockHandle, LockEvents, LockSetEvents, AcquireOptions } from '@zk-recipes/core';
