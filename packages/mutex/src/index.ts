export { InterProcessMutex } from './InterProcessMutex.js';
export { InterProcessSemaphoreMutex } from './InterProcessSemaphoreMutex.js';
export { MUTEX_KIND, type MutexOptions } from './options.js';
export type { LockHandle, LockEvents, AcquireOptions } from '@zk-recipes/core';
