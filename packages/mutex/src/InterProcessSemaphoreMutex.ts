import type { ZkSession } from '@zk-recipes/core';
import { exclusiveRule, LockQueue, nodeDataOf, QueueLock, validateLockPath } from '@zk-recipes/core/recipe-kit';
import { MUTEX_KIND, parseMutexOptions, type MutexOptions } from './options.js';

/**
 * A distributed mutex that is NOT re-entrant (Curator's `InterProcessSemaphoreMutex`): a second
 * acquire from the holder waits (or times out) like anyone else. Release by the holder's context,
 * or with the handle from any context.
 */
export class InterProcessSemaphoreMutex extends QueueLock {
  constructor(session: ZkSession, path: string, options?: MutexOptions) {
    const parsed = parseMutexOptions(options, 'InterProcessSemaphoreMutex');
    super({
      queue: new LockQueue(session, validateLockPath(path, 'lock path')),
      kind: MUTEX_KIND,
      rule: exclusiveRule,
      reentrant: false,
      data: nodeDataOf(parsed.data),
      name: 'InterProcessSemaphoreMutex',
      recipe: 'semaphore-mutex',
    });
  }
}
