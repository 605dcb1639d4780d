import type { Watcher } from '@zk-recipes/core';

/**
 * What `zk-recipes inspect --json` prints: one object per snapshot of one lock. Stable: fields are
 * only ever added (docs/observability.md, "The zk-recipes CLI" documents each one).
 */
export interface LockSnapshot {
  /** The format of this object: 1. */
  format: 1;
  /** The lock's path, as given (inside the chroot, if any). */
  path: string;
  /** When the snapshot was read (this host's clock), ISO 8601. */
  takenAt: string;
  /** Whether a node exists at `path` (with `--watch`, a lock directory may come and go). */
  exists: boolean;
  /** The recipe its nodes belong to; `null` while it has no contenders (nothing tells then). */
  recipe: Recipe | null;
  /**
   * The node layout: `curator` or `zk-recipes` names for a read/write lock, `queue` or `curator`
   * for a semaphore, `null` for a mutex (one layout) or an empty directory.
   */
  layout: 'zk-recipes' | 'queue' | 'curator' | null;
  /** A semaphore's number of leases (recorded in its directory, or from `--max-leases`/`--count`); `null` otherwise or unknown. */
  maxLeases: number | null;
  /** An election's leader: the `id` of its first participant; `null` for a lock, or an election nobody is in. */
  leader: string | null;
  /** How many contenders hold, and how many wait (a Curator semaphore: its lease nodes; its internal lock is not counted). */
  holders: number;
  /** How many contenders wait. */
  waiters: number;
  /** Every contender, in queue order (a Curator semaphore: its lease nodes, then its internal lock's nodes). */
  contenders: Contender[];
}

/** The recipes `inspect` reads: locks, and leader elections (`LeaderLatch`'s and `LeaderSelector`'s layouts). */
export type Recipe = 'mutex' | 'read-write-lock' | 'semaphore' | 'leader-latch' | 'leader-selector';

/**
 * A node's kind: `lock` (a mutex, a Curator semaphore's internal lock, a LeaderSelector's
 * participant), `read`, `write`, `lease`, `latch` (a LeaderLatch's participant); `other` for a kind
 * no recipe writes.
 */
export type ContenderKind = 'lock' | 'read' | 'write' | 'lease' | 'latch' | 'other';

/**
 * `holder` or `waiter`, as the recipe's own ordering rule decides it on the queue (in an election:
 * the leader and the other participants); `unknown` for a semaphore whose maximum is not known (a
 * SharedCount sets it: give `--max-leases` or `--count`).
 */
export type Role = 'holder' | 'waiter' | 'unknown';

/** One node of the lock's queue. */
export interface Contender {
  /** The node's name relative to the lock's path (`leases/…`, `locks/…` in a Curator semaphore). */
  node: string;
  /** The node's full path. */
  path: string;
  /** The sequence ZooKeeper appended to its name. */
  sequence: number;
  /** The node's kind, from its name. */
  kind: ContenderKind;
  /** Whether it holds or waits. */
  role: Role;
  /** A semaphore's lease node: how many leases it holds or asks for; `null` for other nodes. */
  leases: number | null;
  /** The ZooKeeper session that owns the node (its `ephemeralOwner`, 16 hex digits); `null` for a persistent node. */
  sessionId: string | null;
  /** When the node was created (the server's `ctime`), ISO 8601. */
  createdAt: string;
  /** `takenAt` minus `createdAt`, in ms (0 if the clocks disagree the other way). */
  ageMs: number;
  /** The owner data the node carries (host, pid, label), or `null` when it carries none. */
  owner: ContenderOwner | null;
  /**
   * An election participant's id: the `id` its owner data carries, else its node's data as UTF-8
   * (cut to `ID_LIMIT`); `null` for a lock's node.
   */
  id: string | null;
}

/** Who made a node, from its owner data: host name, process id, and the session's `label` (`null` when not set). */
export interface ContenderOwner {
  /** The host name. */
  host: string;
  /** The process id. */
  pid: number;
  /** The session's `label`, or `null` when not set. */
  label: string | null;
}

/** How to read a lock. */
export interface ReadLockOptions {
  /**
   * Set on every node read (the directory's children, each contender's data, the semaphore's
   * maximum): called once on the next change of any of them. For `--watch`.
   */
  watcher?: Watcher | undefined;
  /** A semaphore's maximum, given by the user (it wins over what the directory records). */
  maxLeases?: number | undefined;
  /** The SharedCount node that gives a semaphore's maximum at run time. */
  countPath?: string | undefined;
  /** Read a mutex's queue (`lock-` nodes) as a LeaderSelector's election (`inspect --election`). */
  election?: boolean | undefined;
}
