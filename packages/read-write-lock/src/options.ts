import { z } from 'zod';

/** Options of {@link InterProcessReadWriteLock}. */
export const ReadWriteLockOptionsSchema = z
  .object({
    /** Stored in our lock nodes, visible to other participants (e.g. a host name for diagnostics). */
    data: z.union([z.string(), z.instanceof(Uint8Array)]).optional(),
    /**
     * Node names: `'zk-recipes'` (default) writes `read-` / `write-`; `'curator'` writes Curator's
     * `__READ__` / `__WRIT__`, so Java services using Curator's InterProcessReadWriteLock on the same
     * path share the lock with this one. All participants of one path must use the same naming.
     */
    naming: z.enum(['zk-recipes', 'curator']).default('zk-recipes'),
  })
  .strict();

/** What callers pass (every field optional). */
export type ReadWriteLockOptions = z.input<typeof ReadWriteLockOptionsSchema>;
