import type { MultiLockMember } from './MultiLockMember.js';
import type { MultiLockOrder } from './options.js';

/**
 * The order in which a multi-lock takes its members. `canonical` sorts by path (UTF-16 code
 * units, the same in every process and language), stable for equal paths; `as-given` keeps the
 * caller's order.
 */
export function acquisitionOrder<M extends MultiLockMember>(
  members: readonly M[],
  order: MultiLockOrder,
): M[] {
  const copy = [...members];
  if (order === 'as-given') return copy;
  // Array.prototype.sort is stable, so members on one path keep their given order.
  return copy.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
