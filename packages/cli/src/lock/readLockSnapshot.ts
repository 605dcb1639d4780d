import { parseOwnerData, type Watcher, type ZkSession } from '@zk-recipes/core';
import { exclusiveRule, joinPath, parentOf, sortedChildren, type QueueEntry } from '@zk-recipes/core/recipe-kit';
import { LATCH_KIND, participantOf } from '@zk-recipes/leader';
import { MUTEX_KIND } from '@zk-recipes/mutex';
import { readRule, writeRule } from '@zk-recipes/read-write-lock';
import { leaseQueueRule, weightOfKind } from '@zk-recipes/semaphore';
import { CliError } from './CliError.js';
import type { Contender, ContenderKind, ContenderOwner, LockSnapshot, ReadLockOptions, Recipe } from './LockSnapshot.js';

export type { ReadLockOptions } from './LockSnapshot.js';
import { dataOrNull, listingOrNull, sessionIdOf } from './nodeReads.js';
import { isCuratorSemaphore, readCuratorSemaphore } from './curatorSemaphore.js';
import type { ReadQueue } from './ReadQueue.js';
import { familyOf, type QueueFamily } from './recipeOfKinds.js';
import { rolesOf } from './roles.js';
import { maximumOf } from './semaphoreMaximum.js';
import { ID_LIMIT, OWNER_LIMITS, PRINT_LIMITS } from '../text/limits.js';
import { cut } from '../text/printable.js';


/**
 * Reads every contender of the lock at `path`: lists its directory, reads each node's stat and data
 * (pipelined), and decides each node's role with its recipe's rule.
 * @throws CliError `NO_NODE` when nothing is at `path` (unless `watcher` is given: then the snapshot
 *   says `exists: false` and the watcher is told when it appears); `NOT_A_LOCK` when its children
 *   are not a lock's queue. ZooKeeper errors as the library reports them.
 */
export async function readLockSnapshot(session: ZkSession, path: string, options: ReadLockOptions = {}): Promise<LockSnapshot> {
  const { watcher } = options;
  const takenAt = Date.now();
  const listing = await listingOrNull(session, path, watcher);
  if (listing === null) {
    if (watcher === undefined) throw new CliError('NO_NODE', `no node at ${path}`);
    // Told when it appears; if it did meanwhile, read it now.
    if ((await session.exists(path, watcher)) !== null) return readLockSnapshot(session, path, options);
    return { ...emptySnapshot(path, takenAt), exists: false };
  }
  const { children, stat } = listing;
  if (stat.ephemeralOwner !== 0n) throw new CliError('NOT_A_LOCK', `${path} is a lock node, not a lock: \`zk-recipes inspect ${parentOf(path)}\` shows its lock`);
  const queue = sortedChildren(children);
  if (isCuratorSemaphore(children, queue)) {
    const curator = await readCuratorSemaphore(session, path, options);
    if (curator !== null) return finish(session, path, takenAt, { recipe: 'semaphore', layout: 'curator', maxLeases: curator.maxLeases }, curator.queues, watcher);
  }
  if (children.length === 0) return emptySnapshot(path, takenAt);
  const family = familyOf(queue);
  if (family === null) {
    // Quoted as found but cut: anyone names these children (the CLI escapes the message it prints).
    const sample = children
      .slice(0, 3)
      .map((name) => cut(name, PRINT_LIMITS.quotedName))
      .join(', ');
    throw new CliError('NOT_A_LOCK', `${path} is not a lock: none of its ${children.length} children is a lock node (${sample}${children.length > 3 ? ', …' : ''}); \`zk-recipes ls ${path}\` lists the locks under it`);
  }
  if (family.recipe === 'semaphore') {
    const maxLeases = await maximumOf(session, path, options);
    const rule = maxLeases === null ? null : leaseQueueRule(() => maxLeases);
    const leases: ReadQueue = { directory: path, relative: '', entries: queue, classify: leaseKindOf, rule: () => rule };
    return finish(session, path, takenAt, { recipe: 'semaphore', layout: 'queue', maxLeases }, [leases], watcher);
  }
  const single: ReadQueue = { directory: path, relative: '', entries: queue, ...classifiedBy(family) };
  // A LeaderSelector's election is a mutex's queue: only the caller can say which it is.
  const recipe: Recipe = family.recipe === 'mutex' && options.election === true ? 'leader-selector' : family.recipe;
  return finish(session, path, takenAt, { recipe, layout: family.recipe === 'read-write-lock' ? family.layout : null, maxLeases: null }, [single], watcher);
}

function emptySnapshot(path: string, takenAt: number): LockSnapshot {
  return { format: 1, path, takenAt: new Date(takenAt).toISOString(), exists: true, recipe: null, layout: null, maxLeases: null, leader: null, holders: 0, waiters: 0, contenders: [] };
}

function classifiedBy(family: Exclude<QueueFamily, { recipe: 'semaphore' }>): Pick<ReadQueue, 'classify' | 'rule'> {
  if (family.recipe === 'mutex') {
    return { classify: (entry) => ({ kind: entry.kind === MUTEX_KIND ? 'lock' : 'other', leases: null }), rule: () => exclusiveRule };
  }
  if (family.recipe === 'leader-latch') {
    return { classify: (entry) => ({ kind: entry.kind === LATCH_KIND ? 'latch' : 'other', leases: null }), rule: () => exclusiveRule };
  }
  const { naming } = family;
  const read = readRule(naming);
  const write = writeRule(naming);
  return {
    classify: (entry) => ({ kind: entry.kind === naming.read ? 'read' : entry.kind === naming.write ? 'write' : 'other', leases: null }),
    // A kind the lock does not know counts as exclusive, as the rules count it.
    rule: (entry) => (entry.kind === naming.read ? read : write),
  };
}

function leaseKindOf(entry: QueueEntry): { kind: ContenderKind; leases: number | null } {
  const weight = weightOfKind(entry.kind);
  return weight === null ? { kind: 'other', leases: null } : { kind: 'lease', leases: weight };
}

/** Reads each node of the queues (stat, owner data), drops those gone since the listing, decides roles. */
async function finish(
  session: ZkSession,
  path: string,
  takenAt: number,
  lock: Pick<LockSnapshot, 'recipe' | 'layout' | 'maxLeases'>,
  queues: ReadQueue[],
  watcher: Watcher | undefined,
): Promise<LockSnapshot> {
  const contenders: Contender[] = [];
  const election = lock.recipe === 'leader-latch' || lock.recipe === 'leader-selector';
  let holders = 0;
  let waiters = 0;
  for (const [index, queue] of queues.entries()) {
    const reads = await Promise.all(queue.entries.map((entry) => dataOrNull(session, joinPath(queue.directory, entry.name), watcher)));
    const present = queue.entries.flatMap((entry, i) => (reads[i] === null ? [] : [{ entry, read: reads[i]! }]));
    const roles = rolesOf(
      present.map(({ entry }) => entry),
      queue.rule,
    );
    // The lock's own queue counts; a Curator semaphore's internal lock (its second queue) is shown, not counted.
    if (index === 0) {
      holders = roles.filter((role) => role === 'holder').length;
      waiters = roles.filter((role) => role === 'waiter').length;
    }
    present.forEach(({ entry, read }, i) => {
      const createdAt = Number(read.stat.ctime);
      const { kind, leases } = queue.classify(entry);
      // Keys in the documented order.
      contenders.push({
        node: queue.relative + entry.name,
        path: joinPath(queue.directory, entry.name),
        sequence: entry.sequence,
        kind,
        role: roles[i]!,
        leases,
        sessionId: sessionIdOf(read.stat.ephemeralOwner),
        createdAt: new Date(createdAt).toISOString(),
        ageMs: Math.max(0, takenAt - createdAt),
        owner: ownerOf(read.data),
        id: election ? cut(participantOf(read.data).id, ID_LIMIT) : null,
      });
    });
  }
  return {
    format: 1,
    path,
    takenAt: new Date(takenAt).toISOString(),
    exists: true,
    ...lock,
    leader: election ? (contenders.find((c) => c.role === 'holder')?.id ?? null) : null,
    holders,
    waiters,
    contenders,
  };
}

/** The owner data a node carries, its strings cut to what a zk-recipes process can write (anyone can write a node's data). */
function ownerOf(data: Uint8Array): ContenderOwner | null {
  const owner = parseOwnerData(data);
  if (owner === undefined) return null;
  return { host: cut(owner.host, OWNER_LIMITS.host), pid: owner.pid, label: owner.label === undefined ? null : cut(owner.label, OWNER_LIMITS.label) };
}
