import { z } from 'zod';
import { parseOptions, type AssertTrue, type TypesEqual } from '@zk-recipes/core/recipe-kit';
import { SharedCount } from './SharedCount.js';

/**
 * Node layouts an {@link InterProcessSemaphore} can use. `queue`: our herd-free FIFO layout, no
 * internal lock, all-or-none `acquireMany`. `curator`: Curator's InterProcessSemaphoreV2 layout
 * (`locks/` + `leases/`), to share a path with Java.
 */
export type SemaphoreLayout = 'queue' | 'curator';

/** Options of {@link InterProcessSemaphore}: exactly one of `maxLeases` and `count`. */
export interface SemaphoreOptions {
  /** Fixed number of leases (1..2^31-1). Recorded in the semaphore node; every client must agree. */
  maxLeases?: number | undefined;
  /** A shared count giving the number of leases at run time (started by the semaphore if needed). */
  count?: SharedCount | undefined;
  /**
   * `queue` (default): our herd-free FIFO layout, no internal lock, all-or-none `acquireMany`.
   * `curator`: Curator's InterProcessSemaphoreV2 layout (`locks/` + `leases/`), to share a path with Java.
   */
  layout?: SemaphoreLayout | undefined;
  /**
   * Stored in each lease node, visible to other participants. Default: owner data naming this host,
   * process and the session's `label` (docs/observability.md, "Owner data"), which this replaces.
   */
  data?: string | Uint8Array | undefined;
}

/** {@link SemaphoreOptions} as validated: the layout decided. */
export interface ParsedSemaphoreOptions {
  maxLeases?: number | undefined;
  count?: SharedCount | undefined;
  layout: SemaphoreLayout;
  data?: string | Uint8Array | undefined;
}

const semaphoreOptionsSchema = z
  .object({
    maxLeases: z.number().int().min(1).max(2 ** 31 - 1).optional(),
    count: z.instanceof(SharedCount).optional(),
    layout: z.enum(['queue', 'curator']).default('queue'),
    // Any Uint8Array (a Buffer is one), whatever its backing buffer.
    data: z.union([z.string(), z.custom<Uint8Array>((value) => value instanceof Uint8Array)]).optional(),
  })
  .strict()
  .refine((o) => (o.maxLeases === undefined) !== (o.count === undefined), {
    message: 'give exactly one of maxLeases and count',
  });

// The schema accepts exactly the public type and gives exactly the parsed one: this stops the build
// if one changes without the other.
type _SchemaMatchesSemaphoreOptions = AssertTrue<TypesEqual<z.input<typeof semaphoreOptionsSchema>, SemaphoreOptions>>;
type _SchemaGivesParsedSemaphoreOptions = AssertTrue<TypesEqual<z.output<typeof semaphoreOptionsSchema>, ParsedSemaphoreOptions>>;

/** Validates a semaphore's options; `INVALID_ARGUMENT` names `where`. */
export function parseSemaphoreOptions(options: unknown, where: string): ParsedSemaphoreOptions {
  return parseOptions(semaphoreOptionsSchema, options, where);
}
