/* Public value types of the session layer. Nothing here depends on the wire client. */

/** A znode's metadata, with ZooKeeper's 64-bit fields as bigint. */
export interface Stat {
  /** zxid of the transaction that created the node: only grows across an ensemble's life. */
  czxid: bigint;
  /** zxid of the transaction that last changed the node's data. */
  mzxid: bigint;
  /** When the node was created, in milliseconds since the epoch (the server's clock). */
  ctime: bigint;
  /** When the node's data last changed, in milliseconds since the epoch (the server's clock). */
  mtime: bigint;
  /** How many times the data changed: a conditional `setData` or `delete` names it. */
  version: number;
  /** How many times the children changed. */
  cversion: number;
  /** How many times the ACL changed. */
  aversion: number;
  /** Session id of the owner if the node is ephemeral, else 0n. */
  ephemeralOwner: bigint;
  /** The data's length in bytes. */
  dataLength: number;
  /** How many children the node has. */
  numChildren: number;
  /** zxid of the transaction that last added or removed a child. */
  pzxid: bigint;
}

/** How `create` makes a node: kept or deleted with its session (ephemeral), with a sequence suffix or not, or a container. */
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

/** What a watch saw happen to its node. */
export type WatchEventType = 'created' | 'deleted' | 'dataChanged' | 'childrenChanged';

/** What a watch tells its {@link Watcher}. */
export interface WatchEvent {
  /** What happened. */
  type: WatchEventType;
  /** The watched node's path (without the chroot). */
  path: string;
}

/**
 * A one-shot watch callback. Called at most once, never inside the wire client's socket handler.
 * `onArrival`, if set, is called inside it, the moment the event is read: before any reply or event
 * read with it or after it is acted on. It may only take note (no I/O, and it must not throw).
 */
export type Watcher = ((event: WatchEvent) => void) & {
  /** Takes note of the event the moment it is read (see above). */
  readonly onArrival?: (event: WatchEvent) => void };

/** One entry of a node's ACL: who (`scheme:id`, e.g. `world:anyone`, `digest:user:hash`) may do what (`perms`). */
export interface AclEntry {
  /** Bit set of permissions: READ=1, WRITE=2, CREATE=4, DELETE=8, ADMIN=16, ALL=31. */
  perms: number;
  /** The authentication scheme: `world`, `digest`, `sasl`, `x509`, `ip`, `auth`. */
  scheme: string;
  /** Who, in that scheme's terms (e.g. `anyone`, `user:base64(sha1(user:password))`). */
  id: string;
}

/** Options of `ZkSession.create`. */
export interface CreateOptions {
  /** The node's kind (default `persistent`). */
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

/** What `ZkSession.create` resolves with. */
export interface CreateResult {
  /** The created node's path (with the sequence suffix for sequential nodes). */
  path: string;
  /** The created node's stat, from the same reply (CREATE2): no extra round trip. */
  stat: Stat;
}

/** One operation of `ZkSession.transaction`: all of them are applied, or none. */
export type TransactionOp =
  | {
      /** Create a node. */
      type: 'create';
      /** The node to create. */
      path: string;
      /** Its data (none by default). */
      data?: Uint8Array | null;
      /** Its kind (default `persistent`). */
      mode?: CreateMode;
      /** Its ACL (default: the session's). */
      acl?: AclEntry[];
    }
  | {
      /** Delete a node. */
      type: 'delete';
      /** The node to delete. */
      path: string;
      /** Only if its data version is this one (default: any). */
      version?: number;
    }
  | {
      /** Replace a node's data. */
      type: 'setData';
      /** The node to write. */
      path: string;
      /** The new data. */
      data: Uint8Array;
      /** Only if its data version is this one (default: any). */
      version?: number;
    }
  | {
      /** Fail the transaction unless the node's data version is `version`. */
      type: 'check';
      /** The node to check. */
      path: string;
      /** The data version it must have. */
      version: number;
    };

/** The result of one {@link TransactionOp}, in the same order. */
export type TransactionResult =
  | {
      /** A create. */
      type: 'create';
      /** The created node's path (with its sequence suffix). */
      path: string;
    }
  | {
      /** A delete. */
      type: 'delete';
    }
  | {
      /** A setData. */
      type: 'setData';
      /** The node's stat after the write. */
      stat: Stat;
    }
  | {
      /** A check that passed. */
      type: 'check';
    };

/** Events a {@link ZkSession} emits (eventemitter3). */
export interface ZkSessionEvents {
  /** Every state change, with the new state. */
  state: (state: ConnectionState) => void;
  /** A ZooKeeper session is up: the first one, or a new one after `lost`. */
  connected: () => void;
  /** The connection dropped or went silent: a holder can no longer be sure it holds. */
  suspended: () => void;
  /** The same ZooKeeper session is back after `suspended`: its locks are intact. */
  reconnected: () => void;
  /** The ZooKeeper session is gone; `reason` says why (server expiry, or cut off too long). */
  lost: (reason: Error) => void;
  /** `close()` finished: every call and acquisition has settled. */
  closed: () => void;
  /** A listener of ours threw, or the wire client misbehaved in a way we recovered from. */
  error: (err: Error) => void;
}
