import { z } from 'zod';
import { parseOptions, type AssertTrue, type TypesEqual } from '@zk-recipes/core/recipe-kit';

/** Options of {@link InterProcessMutex} and {@link InterProcessSemaphoreMutex}. */
export interface MutexOptions {
  /**
   * Stored in our lock node, visible to other participants. Default: owner data naming this host,
   * process and the session's `label` (docs/observability.md, "Owner data"), which this replaces.
   */
  data?: string | Uint8Array | undefined;
}

const mutexOptionsSchema = z
  .object({
    // Any Uint8Array (a Buffer is one), whatever its backing buffer.
    data: z.union([z.string(), z.custom<Uint8Array>((value) => value instanceof Uint8Array)]).optional(),
  })
  .strict();

// The schema accepts exactly the public type (and adds no defaults): this stops the build if one
// changes without the other.
type _SchemaMatchesMutexOptions = AssertTrue<TypesEqual<z.input<typeof mutexOptionsSchema>, MutexOptions>>;
type _SchemaGivesMutexOptions = AssertTrue<TypesEqual<z.output<typeof mutexOptionsSchema>, MutexOptions>>;

/** Validates a mutex's options (absent means none); `INVALID_ARGUMENT` names `where`. */
export function parseMutexOptions(options: unknown, where: string): MutexOptions {
  return parseOptions(mutexOptionsSchema, options ?? {}, where);
}

/** Node kind Curator's InterProcessMutex writes: `_c_<uuid>-lock-<seq>`. */
export const MUTEX_KIND = 'lock-';
