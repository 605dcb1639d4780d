/**
 * `@zk-recipes/read-write-lock`: {@link InterProcessReadWriteLock}, a distributed read/write lock:
 * readers share, a writer excludes everyone, first come first served, with the write-to-read
 * downgrade; zk-recipes' or Curator's node names (docs/read-write-lock.md).
 *
 * @module @zk-recipes/read-write-lock
 */
export { InterProcessReadWriteLock } from './InterProcessReadWriteLock.js';
export { ReadLock } from './ReadLock.js';
export { WriteLock } from './WriteLock.js';
export type { ReadWriteLockOptions } from './options.js';
export { CURATOR_NAMING, ZK_RECIPES_NAMING, type ReadWriteNaming } from './naming.js';
export { readRule, writeRule } from './rules.js';
export type { LockHandle, LockEvents, AcquireOptions } from '@zk-recipes/core';
