import { z } from 'zod';
import { parseOptions, type AssertTrue, type TypesEqual } from '@zk-recipes/core/recipe-kit';

/** Options of {@link MutexSet}. */
export interface MutexSetOptions {
  /**
   * Stored in our lock nodes, visible to other participants. Default: owner data naming this host,
   * process and the session's `label` (docs/observability.md, "Owner data"), which this replaces.
   */
  data?: string | Uint8Array | undefined;
  /**
   * How many keys' lock objects are kept in memory while no async context of this process holds
   * or awaits them, for reuse (least recently used dropped first): an integer from 0 (dropped as
   * soon as idle) to 1,000,000. Keys held or awaited are always kept, on top of these. Default
   * {@link DEFAULT_MAX_IDLE_LOCKS}.
   */
  maxIdleLocks?: number | undefined;
  /**
   * Delete a key's lock directory (best effort) each time the key becomes idle in this process,
   * rather than at the server's next container check: for servers whose container reaper is slowed
   * or throttled (`znode.container.checkIntervalMs` raised, `znode.container.maxPerMinute` below
   * the rate keys go idle), or to see directories go at once. Costs a delete per idle key, and the
   * next acquisition of the key makes its directory again. Default `false`: ZooKeeper removes idle
   * lock directories itself (docs/mutex.md, "Directories").
   */
  deleteIdleDirectories?: boolean | undefined;
}

/**
 * The default of {@link MutexSetOptions.maxIdleLocks}: an idle key's lock object (with its share
 * of the engine) is a few kilobytes (docs/mutex.md, "Memory").
 */
export const DEFAULT_MAX_IDLE_LOCKS = 1024;

const mutexSetOptionsSchema = z
  .object({
    // Any Uint8Array (a Buffer is one), whatever its backing buffer.
    data: z.union([z.string(), z.custom<Uint8Array>((value) => value instanceof Uint8Array)]).optional(),
    maxIdleLocks: z.number().int().min(0).max(1_000_000).optional(),
    deleteIdleDirectories: z.boolean().optional(),
  })
  .strict();

// The schema accepts exactly the public type (and adds no defaults): this stops the build if one
// changes without the other.
type _SchemaMatchesMutexSetOptions = AssertTrue<TypesEqual<z.input<typeof mutexSetOptionsSchema>, MutexSetOptions>>;
type _SchemaGivesMutexSetOptions = AssertTrue<TypesEqual<z.output<typeof mutexSetOptionsSchema>, MutexSetOptions>>;

/** Validates a mutex set's options (absent means none); `INVALID_ARGUMENT` names `MutexSet`. */
export function parseMutexSetOptions(options: unknown): MutexSetOptions {
  return parseOptions(mutexSetOptionsSchema, options ?? {}, 'MutexSet');
}
