import type { ZkSession } from '@zk-recipes/core';
import { nodeDataOf, QueueLock, QueueLockSet } from '@zk-recipes/core/recipe-kit';
import { mutexConfig } from './mutexLock.js';
import { DEFAULT_MAX_IDLE_LOCKS, parseMutexSetOptions, type MutexSetOptions } from './mutexSetOptions.js';

/**
 * A re-entrant mutex per key (an order, a tenant, a job) under one base path, without keeping a
 * map of `InterProcessMutex` objects: `await locks.withLock(orderId, fn)`. Each key's lock is an
 * `InterProcessMutex` on `<basePath>/<encoded key>` (docs/mutex.md, "Key encoding"), with its
 * guarantees, its re-entrancy by async context and its node names, so Curator's `InterProcessMutex`
 * on the same path is the same lock. A key's lock object is kept while this process holds or
 * awaits the key, then up to `maxIdleLocks` idle ones: memory does not grow with the number of
 * keys ever used. ZooKeeper removes the keys' idle directories (containers); see
 * `deleteIdleDirectories` for servers that cannot.
 */
export class MutexSet extends QueueLockSet {
  constructor(session: ZkSession, basePath: string, options?: MutexSetOptions) {
    const parsed = parseMutexSetOptions(options);
    const data = nodeDataOf(parsed.data);
    super({
      session,
      path: basePath,
      name: 'MutexSet',
      makeLock: (path, member) => new QueueLock(mutexConfig(session, path, data, 'MutexSet', member)),
      maxIdleLocks: parsed.maxIdleLocks ?? DEFAULT_MAX_IDLE_LOCKS,
      deleteIdleDirectories: parsed.deleteIdleDirectories ?? false,
    });
  }
}
