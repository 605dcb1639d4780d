import { z } from 'zod';
import { SharedCount } from './SharedCount.js';

/** Node layouts an {@link InterProcessSemaphore} can use. */
export const SemaphoreLayoutSchema = z.enum(['queue', 'curator']);
export type SemaphoreLayout = z.infer<typeof SemaphoreLayoutSchema>;

/** Options of {@link InterProcessSemaphore}: exactly one of `maxLeases` and `count`. */
export const SemaphoreOptionsSchema = z
  .object({
    /** Fixed number of leases. Recorded in the semaphore node; every client must agree. */
    maxLeases: z.number().int().min(1).max(2 ** 31 - 1).optional(),
    /** A shared count giving the number of leases at run time (started by the semaphore if needed). */
    count: z.instanceof(SharedCount).optional(),
    /**
     * `queue` (default): our herd-free FIFO layout, no internal lock, all-or-none `acquireMany`.
     * `curator`: Curator's InterProcessSemaphoreV2 layout (`locks/` + `leases/`), to share a path with Java.
     */
    layout: SemaphoreLayoutSchema.default('queue'),
    /** Stored in each lease node, visible to other participants. */
    data: z.union([z.string(), z.instanceof(Uint8Array)]).optional(),
  })
  .strict()
  .refine((o) => (o.maxLeases === undefined) !== (o.count === undefined), {
    message: 'give exactly one of maxLeases and count',
  });

export type SemaphoreOptions = z.input<typeof SemaphoreOptionsSchema>;
