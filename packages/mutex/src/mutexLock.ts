import type { ZkSession } from '@zk-recipes/core';
import { exclusiveRule, LockQueue, validateLockPath, type LockSetMember, type QueueLockConfig } from '@zk-recipes/core/recipe-kit';
import { MUTEX_KIND } from './options.js';

/**
 * The configuration every re-entrant mutex shares: `InterProcessMutex`'s, and each key's lock of a
 * `MutexSet` (named `name` in error messages, a member of its set).
 */
export function mutexConfig(session: ZkSession, path: string, data: Uint8Array | null, name: string, member?: LockSetMember): QueueLockConfig {
  return {
    queue: new LockQueue(session, validateLockPath(path, 'lock path')),
    kind: MUTEX_KIND,
    rule: exclusiveRule,
    reentrant: true,
    data,
    name,
    recipe: 'mutex',
    member,
  };
}
