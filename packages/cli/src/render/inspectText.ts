import type { LockSnapshot } from '../lock/LockSnapshot.js';
import { PRINT_LIMITS } from '../text/limits.js';
import { printable } from '../text/printable.js';
import { formatAge } from './age.js';
import { table } from './table.js';

const NONE = '-';
/** The columns that show what the nodes say, and their bounds; every other cell is the CLI's own. */
const COLUMN_MAX: Readonly<Record<string, number>> = { NODE: PRINT_LIMITS.node, HOST: PRINT_LIMITS.host, LABEL: PRINT_LIMITS.label };

/**
 * `inspect`'s text: a line naming the lock, then one row per contender in queue order. What the
 * nodes say (names, owner data) is escaped and bounded per column: one row per contender, of at
 * most a few hundred characters, whatever they hold.
 */
export function inspectText(snapshot: LockSnapshot): string {
  const heading = headingOf(snapshot);
  if (snapshot.contenders.length === 0) return heading;
  const semaphore = snapshot.recipe === 'semaphore';
  const headers = ['NODE', 'KIND', 'ROLE', ...(semaphore ? ['LEASES'] : []), 'SESSION', 'AGE', 'HOST', 'PID', 'LABEL'];
  const rows = snapshot.contenders.map((c) => [
    c.node,
    c.kind,
    c.role,
    ...(semaphore ? [c.leases === null ? NONE : String(c.leases)] : []),
    c.sessionId ?? NONE,
    formatAge(c.ageMs),
    c.owner?.host ?? NONE,
    c.owner === null ? NONE : String(c.owner.pid),
    c.owner?.label ?? NONE,
  ]);
  return `${heading}\n${table(headers, rows, headers.map((header) => COLUMN_MAX[header] ?? PRINT_LIMITS.cell))}`;
}

function headingOf(snapshot: LockSnapshot): string {
  const path = printable(snapshot.path, PRINT_LIMITS.path);
  if (!snapshot.exists) return `${path}: no such node (waiting for it to appear)`;
  if (snapshot.contenders.length === 0) return `${path}: no contenders`;
  const parts = [snapshot.layout === null ? `${snapshot.recipe}` : `${snapshot.recipe} (${snapshot.layout} layout)`];
  if (snapshot.recipe === 'semaphore') {
    parts.push(snapshot.maxLeases === null ? 'maxLeases unknown (give --max-leases or --count)' : `maxLeases ${snapshot.maxLeases}`);
  }
  parts.push(plural(snapshot.holders, 'holder'), plural(snapshot.waiters, 'waiter'));
  return `${path}: ${parts.join(', ')}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
