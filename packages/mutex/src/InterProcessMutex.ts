import type { ZkSession } from '@zk-recipes/core';
import { nodeDataOf, QueueLock } from '@zk-recipes/core/recipe-kit';
import { mutexConfig } from './mutexLock.js';
import { parseMutexOptions, type MutexOptions } from './options.js';

/**
 * A distributed, fair, re-entrant mutex (Curator's `InterProcessMutex`), re-entrant by async
 * context: the code after `await mutex.acquire()` and everything it starts may acquire again
 * without waiting; any other task, in this process or another, waits its turn (FIFO).
 *
 * Node names are `_c_<uuid>-lock-<seq>`, exactly as Curator writes them, so Java services using
 * Curator's InterProcessMutex on the same path exclude each other with this one.
 */
export class InterProcessMutex extends QueueLock {
  constructor(session: ZkSession, path: string, options?: MutexOptions) {
    const parsed = parseMutexOptions(options, 'InterProcessMutex');
    super(mutexConfig(session, path, nodeDataOf(parsed.data), 'InterProcessMutex'));
  }
}
