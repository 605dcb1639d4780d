import type { LockSnapshot } from '../lock/LockSnapshot.js';
import { PRINT_LIMITS } from '../text/limits.js';
import { printable } from '../text/printable.js';
import { formatAge } from './age.js';
import { table } from './table.js';

/** One lock of `ls`, as `--json` prints it. */
export interface LockSummary {
  /** The lock directory. */
  path: string;
  /** The recipe its nodes show. */
  recipe: LockSnapshot['recipe'];
  /** The layout, as the lock's snapshot reports it. */
  layout: LockSnapshot['layout'];
  /** A semaphore's maximum of leases, when known; `null` otherwise. */
  maxLeases: number | null;
  /** How many nodes hold. */
  holders: number;
  /** How many nodes wait. */
  waiters: number;
  /** All nodes listed by `inspect` (a Curator semaphore's internal lock included). */
  contenders: number;
  /** The age of the oldest holder, ms; `null` when none holds. */
  oldestHolderAgeMs: number | null;
}

/** What `ls --json` prints. */
export interface LockListing {
  /** The JSON format's version. */
  format: 1;
  /** The path searched under. */
  root: string;
  /** When the listing was taken (this host's clock), ISO 8601. */
  takenAt: string;
  /** The locks found, by path. */
  locks: LockSummary[];
}

/**
 * One lock's row of a listing. Ages are measured from the listing's one moment, `takenAtMs`, not
 * from when each lock was read: the locks of a listing are then comparable.
 */
export function summaryOf(lock: LockSnapshot, takenAtMs: number): LockSummary {
  // A Curator semaphore's internal lock is not the lock: its holder is a process still acquiring.
  const holders = lock.contenders.filter((c) => c.role === 'holder' && !(lock.recipe === 'semaphore' && c.kind === 'lock'));
  // A loop, not Math.max(...ages): a semaphore may have more holders than a call has arguments.
  let oldest: number | null = null;
  for (const c of holders) oldest = Math.max(oldest ?? 0, takenAtMs - Date.parse(c.createdAt));
  return {
    path: lock.path,
    recipe: lock.recipe,
    layout: lock.layout,
    maxLeases: lock.maxLeases,
    holders: lock.holders,
    waiters: lock.waiters,
    contenders: lock.contenders.length,
    oldestHolderAgeMs: oldest,
  };
}

/** `ls`'s text: one row per lock, its path escaped and bounded. */
export function lsText(listing: LockListing): string {
  if (listing.locks.length === 0) return `no locks with contenders under ${printable(listing.root, PRINT_LIMITS.path)}`;
  const rows = listing.locks.map((lock) => [
    lock.path,
    lock.layout === null ? `${lock.recipe}` : `${lock.recipe}/${lock.layout}`,
    String(lock.holders),
    String(lock.waiters),
    lock.oldestHolderAgeMs === null ? '-' : formatAge(lock.oldestHolderAgeMs),
  ]);
  // The age of the oldest holder's node: since it was created, its wait in the queue included
  // (ZooKeeper records no grant, and recording one would add a write to every hand-off).
  return table(['PATH', 'RECIPE', 'HOLDERS', 'WAITERS', 'OLDEST HOLDER, SINCE QUEUED'], rows, [PRINT_LIMITS.path]);
}
