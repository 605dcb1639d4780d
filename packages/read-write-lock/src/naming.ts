/**
 * Node kinds of the two halves of a read/write lock. Both halves queue in ONE directory, ordered by
 * the sequence ZooKeeper appends, so only the kind tells a reader's node from a writer's.
 */
export interface ReadWriteNaming {
  /** Kind of a reader's node, e.g. `read-` (`_c_<uuid>-read-0000000007`). */
  readonly read: string;
  /** Kind of a writer's node, e.g. `write-`. */
  readonly write: string;
}

/** zk-recipes' own names: `_c_<uuid>-read-<seq>` and `_c_<uuid>-write-<seq>`. */
export const ZK_RECIPES_NAMING: ReadWriteNaming = Object.freeze({ read: 'read-', write: 'write-' });

/**
 * The names Curator's `InterProcessReadWriteLock` writes (`_c_<uuid>-__READ__<seq>`,
 * `_c_<uuid>-__WRIT__<seq>`), so a Java service using Curator shares the lock with this one.
 */
export const CURATOR_NAMING: ReadWriteNaming = Object.freeze({ read: '__READ__', write: '__WRIT__' });

/** The naming for the `naming` option. */
export function namingFor(naming: 'zk-recipes' | 'curator'): ReadWriteNaming {
  return naming === 'curator' ? CURATOR_NAMING : ZK_RECIPES_NAMING;
}
