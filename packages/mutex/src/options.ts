import { z } from 'zod';

/** Options of {@link InterProcessMutex} and {@link InterProcessSemaphoreMutex}. */
export const MutexOptionsSchema = z
  .object({
    /** Stored in our lock node, visible to other participants (e.g. a host name for diagnostics). */
    data: z.union([z.string(), z.instanceof(Uint8Array)]).optional(),
  })
  .strict();

export type MutexOptions = z.infer<typeof MutexOptionsSchema>;

/** Node kind Curator's InterProcessMutex writes: `_c_<uuid>-lock-<seq>`. */
export const MUTEX_KIND = 'lock-';
