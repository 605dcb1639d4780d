import { parseOwnerData } from '@zk-recipes/core';
import type { Contender, ContenderOwner, LockSnapshot } from '../lock/LockSnapshot.js';
import { PRINT_LIMITS } from '../text/limits.js';
import { printable } from '../text/printable.js';
import { formatAge } from './age.js';
import { table } from './table.js';

const NONE = '-';
/** The columns that show what the nodes say, and their bounds; every other cell is the CLI's own. */
const COLUMN_MAX: Readonly<Record<string, number>> = { NODE: PRINT_LIMITS.node, ID: PRINT_LIMITS.id, HOST: PRINT_LIMITS.host, LABEL: PRINT_LIMITS.label };
/** An election's roles, as its recipes name them. */
const ELECTION_ROLES: Readonly<Record<string, string>> = { holder: 'leader', waiter: 'participant' };

/**
 * `inspect`'s text: a line naming the lock, then one row per contender in queue order. What the
 * nodes say (names, ids, owner data) is escaped and bounded per column: one row per contender, of
 * at most a few hundred characters, whatever they hold. An election's rows name the leader and the
 * participants, with each one's id (`-` when its id is its owner data: the owner columns show it;
 * an id kept beside its owner data shows in both).
 */
export function inspectText(snapshot: LockSnapshot): string {
  const heading = headingOf(snapshot);
  if (snapshot.contenders.length === 0) return heading;
  const semaphore = snapshot.recipe === 'semaphore';
  const election = isElection(snapshot);
  const headers = ['NODE', 'KIND', 'ROLE', ...(semaphore ? ['LEASES'] : []), ...(election ? ['ID'] : []), 'SESSION', 'AGE', 'HOST', 'PID', 'LABEL'];
  const rows = snapshot.contenders.map((c) => [
    c.node,
    c.kind,
    election ? (ELECTION_ROLES[c.role] ?? c.role) : c.role,
    ...(semaphore ? [c.leases === null ? NONE : String(c.leases)] : []),
    ...(election ? [namedId(c) ?? NONE] : []),
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
  if (isElection(snapshot)) {
    const leader = snapshot.contenders.find((c) => c.role === 'holder');
    const id = leader === undefined ? null : namedId(leader);
    const named = leader === undefined ? 'no leader' : `leader ${id === null && leader.owner !== null ? ownerName(leader.owner) : printable(id ?? '', PRINT_LIMITS.id)}`;
    return `${path}: leader election (${snapshot.recipe === 'leader-latch' ? 'LeaderLatch' : 'LeaderSelector'}), ${named}, ${plural(snapshot.contenders.length, 'participant')}`;
  }
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

/**
 * A participant's id as given to it, or `null` when it has none of its own: its id is then its
 * owner data (the default id), which the owner columns show.
 */
function namedId(c: Contender): string | null {
  if (c.id === null) return null;
  return c.owner !== null && parseOwnerData(Buffer.from(c.id, 'utf8')) !== undefined ? null : c.id;
}

/** A participant whose id is its owner data, by its owner: `host pid 41207 (label)`. */
function ownerName(owner: ContenderOwner): string {
  const label = owner.label === null ? '' : ` (${printable(owner.label, PRINT_LIMITS.label)})`;
  return `${printable(owner.host, PRINT_LIMITS.host)} pid ${owner.pid}${label}`;
}

function isElection(snapshot: LockSnapshot): boolean {
  return snapshot.recipe === 'leader-latch' || snapshot.recipe === 'leader-selector';
}
