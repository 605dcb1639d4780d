/**
 * @zk-recipes/multi-lock: hold several zk-recipes locks as one, all or nothing
 * (Curator's InterProcessMultiLock, with one deadline for the whole acquisition).
 *
 * @module @zk-recipes/multi-lock
 */
export { InterProcessMultiLock } from './InterProcessMultiLock.js';
export type { MultiLockHandle } from './MultiLockHandle.js';
export { isMultiLockMember, type MultiLockMember } from './MultiLockMember.js';
export type { MultiLockOptions, MultiLockOrder, ParsedMultiLockOptions } from './options.js';
export { acquisitionOrder } from './acquisitionOrder.js';
export { Deadline } from '@zk-recipes/core/recipe-kit';
export { releaseInReverse } from './releaseInReverse.js';
export type { AcquireOptions, LockEvents, LockHandle } from '@zk-recipes/core';
