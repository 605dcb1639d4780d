import type { ZkSession } from '@zk-recipes/core';
import { LockQueue, nodeDataOf, validateLockPath } from '@zk-recipes/core/recipe-kit';
import { namingFor, type ReadWriteNaming } from './naming.js';
import { parseReadWriteLockOptions, type ReadWriteLockOptions } from './options.js';
import { ReadLock } from './ReadLock.js';
import { WriteLock } from './WriteLock.js';

/**
 * A distributed read/write lock (Curator's `InterProcessReadWriteLock`): many readers or one
 * writer, strictly first come, first served, so a stream of readers never starves a writer.
 *
 * Both halves queue in one directory: `<path>/_c_<uuid>-read-<seq>` and `_c_<uuid>-write-<seq>`
 * (or Curator's `__READ__` / `__WRIT__` with `naming: 'curator'`). Both are re-entrant by async
 * context. The write-lock holder may take the read lock at once and keep the writer's place
 * (downgrade); a read-lock holder asking for the write lock is refused with
 * `UPGRADE_NOT_SUPPORTED` (it would wait for itself forever).
 *
 * @example
 * const rw = new InterProcessReadWriteLock(session, '/locks/catalog');
 * await rw.readLock().withLock(async () => readCatalog());
 * await rw.writeLock().withLock(async () => writeCatalog());
 */
export class InterProcessReadWriteLock {
  /** The lock directory. */
  readonly path: string;
  /** The node names this lock writes. */
  readonly naming: ReadWriteNaming;
  private readonly read: ReadLock;
  private readonly write: WriteLock;

  constructor(session: ZkSession, path: string, options?: ReadWriteLockOptions) {
    const parsed = parseReadWriteLockOptions(options, 'InterProcessReadWriteLock');
    this.path = validateLockPath(path, 'lock path');
    this.naming = namingFor(parsed.naming);
    const queue = new LockQueue(session, this.path);
    const data = nodeDataOf(parsed.data);
    this.write = new WriteLock(queue, this.naming, data, () => this.read.isOwnedByCurrentContext());
    this.read = new ReadLock(queue, this.naming, data, this.write);
  }

  /** The shared lock. Always the same object for this instance. */
  readLock(): ReadLock {
    return this.read;
  }

  /** The exclusive lock. Always the same object for this instance. */
  writeLock(): WriteLock {
    return this.write;
  }
}
