export { InterProcessReadWriteLock } from './InterProcessReadWriteLock.js';
export { ReadLock } from './ReadLock.js';
export { WriteLock } from './WriteLock.js';
export type { ReadWriteLockOptions } from './options.js';
export { CURATOR_NAMING, ZK_RECIPES_NAMING, type ReadWriteNaming } from './naming.js';
export { readRule, writeRule } from './rules.js';
export type { LockHandle, LockEvents, AcquireOptions } from '@zk-recipes/core';
