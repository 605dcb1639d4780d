import type { LockSnapshot } from '../lock/LockSnapshot.js';
import { formatAge } from './age.js';
import { table } from './table.js';

const NONE = '-';

/** `inspect`'s text: a line naming the lock, then one row per contender in queue order. */
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
  return `${heading}\n${table(headers, rows)}`;
}

function headingOf(snapshot: LockSnapshot): string {
  const { path } = snapshot;
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
