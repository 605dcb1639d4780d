import { z } from 'zod';
import { parseOptions, type AssertTrue, type TypesEqual } from '@zk-recipes/core/recipe-kit';
import { isMultiLockMember, type MultiLockMember } from './MultiLockMember.js';

/**
 * The order a multi-lock takes its members in. `canonical`: sorted by path, so any two multi-locks
 * over the same locks take them in the same order and cannot deadlock each other, however they were
 * listed (members on the same path keep the order they were given in). `as-given`: in the order
 * given (when that order is a protocol of its own).
 */
export type MultiLockOrder = 'canonical' | 'as-given';

/** Options of {@link InterProcessMultiLock}. */
export interface MultiLockOptions {
  /**
   * `canonical` (default): acquire the members sorted by path, so any two multi-locks over the
   * same locks take them in the same order and cannot deadlock each other, however they were
   * listed. Members on the same path keep the order they were given in.
   * `as-given`: acquire them in the order given (when that order is a protocol of its own).
   */
  order?: MultiLockOrder | undefined;
}

/** {@link MultiLockOptions} as validated: the order decided. */
export interface ParsedMultiLockOptions {
  /** The order the members are taken in (default `canonical`). */
  order: MultiLockOrder;
}

const multiLockOptionsSchema = z
  .object({
    order: z.enum(['canonical', 'as-given']).default('canonical'),
  })
  .strict();

// The schema accepts exactly the public type and gives exactly the parsed one: this stops the build
// if one changes without the other.
type _SchemaMatchesMultiLockOptions = AssertTrue<TypesEqual<z.input<typeof multiLockOptionsSchema>, MultiLockOptions>>;
type _SchemaGivesParsedMultiLockOptions = AssertTrue<TypesEqual<z.output<typeof multiLockOptionsSchema>, ParsedMultiLockOptions>>;

/** The members of a multi-lock: at least one lock, each listed once. */
const multiLockMembersSchema = z
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
const multiLockPathsSchema = z
  .array(z.string())
  .min(1, 'a multi-lock needs at least one path')
  .refine((paths) => new Set(paths).size === paths.length, {
    message: 'a path is listed more than once (two mutexes on one path would wait for each other)',
  });

/** Validates a multi-lock's options (absent means none); `INVALID_ARGUMENT` names `where`. */
export function parseMultiLockOptions(options: unknown, where: string): ParsedMultiLockOptions {
  return parseOptions(multiLockOptionsSchema, options ?? {}, where);
}

/** Validates a multi-lock's members: at least one lock, each listed once. */
export function parseMultiLockMembers(members: unknown, where: string): MultiLockMember[] {
  return parseOptions(multiLockMembersSchema, members, where);
}

/** Validates the lock paths of {@link InterProcessMultiLock.fromPaths}: at least one, no duplicates. */
export function parseMultiLockPaths(paths: unknown, where: string): string[] {
  return parseOptions(multiLockPathsSchema, paths, where);
}
