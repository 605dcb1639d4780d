import { z } from 'zod';
import { parseOptions, type AssertTrue, type TypesEqual } from '@zk-recipes/core/recipe-kit';

/** Options of {@link InterProcessReadWriteLock} (every field optional). */
export interface ReadWriteLockOptions {
  /**
   * Stored in our lock nodes, visible to other participants. Default: owner data naming this host,
   * process and the session's `label` (docs/observability.md, "Owner data"), which this replaces.
   */
  data?: string | Uint8Array | undefined;
  /**
   * Node names: `'zk-recipes'` (default) writes `read-` / `write-`; `'curator'` writes Curator's
   * `__READ__` / `__WRIT__`, so Java services using Curator's InterProcessReadWriteLock on the same
   * path share the lock with this one. All participants of one path must use the same naming.
   */
  naming?: 'zk-recipes' | 'curator' | undefined;
}

/** {@link ReadWriteLockOptions} as validated: the naming decided. */
export interface ParsedReadWriteLockOptions {
  data?: string | Uint8Array | undefined;
  naming: 'zk-recipes' | 'curator';
}

const readWriteLockOptionsSchema = z
  .object({
    // Any Uint8Array (a Buffer is one), whatever its backing buffer.
    data: z.union([z.string(), z.custom<Uint8Array>((value) => value instanceof Uint8Array)]).optional(),
    naming: z.enum(['zk-recipes', 'curator']).default('zk-recipes'),
  })
  .strict();

// The schema accepts exactly the public type and gives exactly the parsed one: this stops the build
// if one changes without the other.
type _SchemaMatchesReadWriteLockOptions = AssertTrue<TypesEqual<z.input<typeof readWriteLockOptionsSchema>, ReadWriteLockOptions>>;
type _SchemaGivesParsedReadWriteLockOptions = AssertTrue<
  TypesEqual<z.output<typeof readWriteLockOptionsSchema>, ParsedReadWriteLockOptions>
>;

/** Validates a read/write lock's options (absent means none); `INVALID_ARGUMENT` names `where`. */
export function parseReadWriteLockOptions(options: unknown, where: string): ParsedReadWriteLockOptions {
  return parseOptions(readWriteLockOptionsSchema, options ?? {}, where);
}
