/* Public value types of the session layer. Nothing here depends on the wire client. */

/** A znode's metadata, with ZooKeeper's 64-bit fields as bigint. */
export interface Stat {
  /** zxid of the transaction that created the node: only grows across an ensemble's life. */
  czxid: bigint;
  mzxid: bigint;
  ctime: bigint;
  mtime: bigint;
  version: number;
  cversion: number;
  aversion: number;
  /** Session id of the owner if the node is ephemeral, else 0n. */
  ephemeralOwner: bigint;
  dataLength: number;
  numChildren: number;
  pzxid: bigint;
}

export type CreateMode =
  | 'persistent'
  | 'ephemeral'
  | 'persistent_sequential'
  | 'ephemeral_sequential'
  /** A container node: the server deletes it once its last child is gone (ZooKeeper >= 3.5.3). */
  | 'container';

/**
 * Curator's connection states, plus `connecting` (before the first connect) and `closed`.
 * - `connected`: first connection of a session established.
 * - `suspended`: the connection is gone (or silent); a lock holder can no longer be sure it holds.
 * - `reconnected`: the same ZooKeeper session is back; ephemeral nodes and locks are intact.
 * - `lost`: the ZooKeeper session is gone (expired on the server, or cut off for a full session
 *   timeout). Its ephemeral nodes are, or will shortly be, deleted. The session then builds a new
 *   ZooKeeper session on its own and emits `connected` again when it is up.
 * - `closed`: `close()` was called.
 */
export type ConnectionState = 'connecting' | 'connected' | 'suspended' | 'reconnected' | 'lost' | 'closed';

export type WatchEventType = 'created' | 'deleted' | 'dataChanged' | 'childrenChanged';

export interface WatchEvent {
  type: WatchEventType;
  path: string;
}

/**
 * A one-shot watch callback. Called at most once, never inside the wire client's socket handler.
 * `onArrival`, if set, is called inside it, the moment the event is read: before any reply or event
 * read with it or after it is acted on. It may only take note (no I/O, and it must not throw).
 */
export type Watcher = ((event: WatchEvent) => void) & { readonly onArrival?: (event: WatchEvent) => void };

export interface AclEntry {
  /** Bit set of permissions: READ=1, WRITE=2, CREATE=4, DELETE=8, ADMIN=16, ALL=31. */
  perms: number;
  scheme: string;
  id: string;
}

export interface CreateOptions {
  mode?: CreateMode;
  /** Overrides the session's default ACL for this node. */
  acl?: AclEntry[];
}

/** Options of `ZkSession.mkdirp`. */
export interface MkdirpOptions {
  /** The mode of the missing ancestors (default: the mode of the path itself). */
  ancestors?: 'persistent' | 'container' | undefined;
  /** The data of the path itself, if this call creates it. */
  data?: Uint8Array | null | undefined;
}

export interface CreateResult {
  /** The created node's path (with the sequence suffix for sequential nodes). */
  path: string;
  /** The created node's stat, from the same reply (CREATE2): no extra round trip. */
  stat: Stat;
}

export type TransactionOp =
  | { type: 'create'; path: string; data?: Uint8Array | null; mode?: CreateMode; acl?: AclEntry[] }
  | { type: 'delete'; path: string; version?: number }
  | { type: 'setData'; path: string; data: Uint8Array; version?: number }
  | { type: 'check'; path: string; version: number };

export type TransactionResult =
  | { type: 'create'; path: string }
  | { type: 'delete' }
  | { type: 'setData'; stat: Stat }
  | { type: 'check' };

/** Events a {@link ZkSession} emits (eventemitter3). */
export interface ZkSessionEvents {
  /** Every state change, with the new state. */
  state: (state: ConnectionState) => void;
  connected: () => void;
  suspended: () => void;
  reconnected: () => void;
  /** The ZooKeeper session is gone; `reason` says why (server expiry, or cut off too long). */
  lost: (reason: Error) => void;
  closed: () => void;
  /** A listener of ours threw, or the wire client misbehaved in a way we recovered from. */
  error: (err: Error) => void;
}
