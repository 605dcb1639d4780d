import { z } from 'zod';
import { isMultiLockMember, type MultiLockMember } from './MultiLockMember.js';

/** Options of {@link InterProcessMultiLock}. */
export const MultiLockOptionsSchema = z
  .object({
    /**
     * `canonical` (default): acquire the members sorted by path, so any two multi-locks over the
     * same locks take them in the same order and cannot deadlock each other, however they were
     * listed. Members on the same path keep the order they were given in.
     * `as-given`: acquire them in the order given (when that order is a protocol of its own).
     */
    order: z.enum(['canonical', 'as-given']).default('canonical'),
  })
  .strict();

export type MultiLockOptions = z.input<typeof MultiLockOptionsSchema>;
export type ParsedMultiLockOptions = z.output<typeof MultiLockOptionsSchema>;

/** The members of a multi-lock: at least one lock, each listed once. */
export const MultiLockMembersSchema = z
  .array(
    z.custom<MultiLockMember>(isMultiLockMember, {
      message: 'expected a lock: an object with a string `path` and an `acquire()` method',
    }),
  )
  .min(1, 'a multi-lock needs at least one member')
  .refine((members) => new Set(members).size === members.length, {
    message: 'a lock is listed more than once (list each lock object once)',
  });

/** Lock paths for {@link InterProcessMultiLock.fromPaths}: at least one, no duplicates. */
export const MultiLockPathsSchema = z
  .array(z.string())
  .min(1, 'a multi-lock needs at least one path')
  .refine((paths) => new Set(paths).size === paths.length, {
    message: 'a path is listed more than once (two mutexes on one path would wait for each other)',
  });
