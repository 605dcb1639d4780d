export { InterProcessMutex } from './InterProcessMutex.js';
export { InterProcessSemaphoreMutex } from './InterProcessSemaphoreMutex.js';
export { MutexSet } from './MutexSet.js';
export { MUTEX_KIND, type MutexOptions } from './options.js';
export { DEFAULT_MAX_IDLE_LOCKS, type MutexSetOptions } from './mutexSetOptions.js';
export type { LockHandle, LockEvents, LockSetEvents, AcquireOptions } from '@zk-recipes/core';
