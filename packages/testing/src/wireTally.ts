/**
 * What a ZooKeeper client cost the server, counted at the wire (see {@link FaultProxy.tally}):
 * requests by opcode, writes, and the watch notifications the server delivered. Counts, not times:
 * they are the same on a fast machine and a slow one, so tests can hold them to a budget.
 */

/** ZooKeeper request opcodes (`OpCode` in the server's protocol), by name. */
export const ZK_OPCODES = {
  /** Create a node. */
  create: 1,
  /** Delete a node. */
  delete: 2,
  /** Read a node's stat, or learn it is absent; may arm a watch. */
  exists: 3,
  /** Read a node's data and stat; may arm a watch. */
  getData: 4,
  /** Write a node's data. */
  setData: 5,
  /** Read a node's ACL. */
  getACL: 6,
  /** Write a node's ACL. */
  setACL: 7,
  /** List a node's children; may arm a child watch. */
  getChildren: 8,
  /** Bring the connected server up to date with the leader. */
  sync: 9,
  /** Keep the session alive (sent with xid -2, so not counted as a request). */
  ping: 11,
  /** List a node's children with the parent's stat; may arm a child watch. */
  getChildren2: 12,
  /** Check a node's version (inside a `multi`). */
  check: 13,
  /** Several operations applied atomically: one transaction. */
  multi: 14,
  /** Create a node and return its stat. */
  create2: 15,
  /** Change the ensemble's membership. */
  reconfig: 16,
  /** Check that a watch is registered. */
  checkWatches: 17,
  /** Remove a watch from the server. */
  removeWatches: 18,
  /** Create a container node (the server deletes it once its last child goes). */
  createContainer: 19,
  /** Delete an empty container node (the server's own reaper). */
  deleteContainer: 20,
  /** Create a node with a time to live. */
  createTTL: 21,
  /** Several reads in one request. */
  multiRead: 22,
  /** Add authentication to the session (sent with a negative xid). */
  auth: 100,
  /** Re-arm the session's watches after a reconnection (sent with a negative xid). */
  setWatches: 101,
  /** A SASL authentication step. */
  sasl: 102,
  /** List the session's ephemeral nodes. */
  getEphemerals: 103,
  /** Count a node's descendants. */
  getAllChildrenNumber: 104,
  /** Re-arm the session's watches, persistent ones included, after a reconnection. */
  setWatches2: 105,
  /** Arm a persistent (optionally recursive) watch. */
  addWatch: 106,
  /** Ask the server for the session's authenticated identities. */
  whoAmI: 107,
  /** Open a session (the server's own record of it: a client's connect request carries no opcode). */
  createSession: -10,
  /** Close the session. */
  closeSession: -11,
} as const;

/** The name of a request opcode {@link ZK_OPCODES} knows. */
export type ZkOpName = keyof typeof ZK_OPCODES;

/**
 * Opcodes that change the tree: each is one transaction the server logs (and fsyncs), a `multi`
 * once however many operations it holds.
 */
export const WRITE_OPCODES: ReadonlySet<number> = new Set([1, 2, 5, 7, 14, 15, 16, 19, 20, 21]);

/** Watch event types as the server sends them in a notification (`EventType`). */
export const WATCH_EVENT_TYPES = {
  /** A change of the session's connection state, not of a node. */
  [-1]: 'none',
  /** A watched node was created. */
  1: 'nodeCreated',
  /** A watched node was deleted. */
  2: 'nodeDeleted',
  /** A watched node's data changed. */
  3: 'nodeDataChanged',
  /** A watched node's children changed. */
  4: 'nodeChildrenChanged',
  /** A data watch was removed (`removeWatches`). */
  5: 'dataWatchRemoved',
  /** A child watch was removed (`removeWatches`). */
  6: 'childWatchRemoved',
  /** A persistent watch was removed (`removeWatches`). */
  7: 'persistentWatchRemoved',
} as const satisfies Record<number, string>;

/** The name of a watch event type {@link WATCH_EVENT_TYPES} knows. */
export type WatchEventName = (typeof WATCH_EVENT_TYPES)[keyof typeof WATCH_EVENT_TYPES];

/** The xid of a server frame that is a watch notification, not a reply. */
export const NOTIFICATION_XID = -1;
/** The xid of pings (both ways). */
export const PING_XID = -2;

/** Counts of one proxy's traffic (a snapshot, or the difference of two: {@link tallyDelta}). */
export interface WireTally {
  /**
   * Requests the client sent with a non-negative xid: everything it asked for. Pings, auth and
   * set-watches frames (negative xids) and the connect request are not requests here.
   */
  readonly requests: number;
  /** Of `requests`, those that change the tree ({@link WRITE_OPCODES}): a `multi` counts once. */
  readonly writes: number;
  /** `requests` by opcode name (`op<N>` for an opcode this table does not name). Zero counts are left out. */
  readonly byOp: Readonly<Record<string, number>>;
  /** Watch notifications the server sent the client (frames with xid -1). */
  readonly notifications: number;
  /** `notifications` by event type ({@link WATCH_EVENT_TYPES}). Zero counts are left out. */
  readonly notificationsByType: Readonly<Record<string, number>>;
  /** Pings the client sent. */
  readonly pings: number;
}

/** An empty tally. */
export const ZERO_TALLY: WireTally = Object.freeze({ requests: 0, writes: 0, byOp: {}, notifications: 0, notificationsByType: {}, pings: 0 });

const OP_NAMES = new Map<number, string>(Object.entries(ZK_OPCODES).map(([name, code]) => [code, name]));

/** The name of an opcode (`op<N>` when unknown). */
export function opName(opCode: number): string {
  return OP_NAMES.get(opCode) ?? `op${opCode}`;
}

function eventName(type: number): string {
  return (WATCH_EVENT_TYPES as Record<number, string>)[type] ?? `event${type}`;
}

/** `a + sign * b`, key by key, zero counts left out. */
function combine(a: Readonly<Record<string, number>>, b: Readonly<Record<string, number>>, sign: 1 | -1): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const n = (a[key] ?? 0) + sign * (b[key] ?? 0);
    if (n !== 0) out[key] = n;
  }
  return out;
}

/** What happened between two snapshots of one proxy: `after - before`. */
export function tallyDelta(after: WireTally, before: WireTally): WireTally {
  return {
    requests: after.requests - before.requests,
    writes: after.writes - before.writes,
    byOp: combine(after.byOp, before.byOp, -1),
    notifications: after.notifications - before.notifications,
    notificationsByType: combine(after.notificationsByType, before.notificationsByType, -1),
    pings: after.pings - before.pings,
  };
}

/** The sum of several tallies (e.g. one per contender's proxy). */
export function sumTallies(tallies: Iterable<WireTally>): WireTally {
  let sum = ZERO_TALLY;
  for (const t of tallies) {
    sum = {
      requests: sum.requests + t.requests,
      writes: sum.writes + t.writes,
      byOp: combine(sum.byOp, t.byOp, 1),
      notifications: sum.notifications + t.notifications,
      notificationsByType: combine(sum.notificationsByType, t.notificationsByType, 1),
      pings: sum.pings + t.pings,
    };
  }
  return sum;
}

/**
 * The running counts behind a proxy's {@link WireTally}: fed every whole frame the proxy forwards
 * (after the connect request / response), unbounded (unlike the proxy's recent-frames record).
 */
export class WireCounter {
  private requests = 0;
  private writes = 0;
  private notifications = 0;
  private pings = 0;
  private readonly byOp = new Map<number, number>();
  private readonly byEvent = new Map<number, number>();

  /** A client frame: `xid` and `type` as read from its header. */
  request(xid: number, type: number): void {
    if (xid === PING_XID) {
      this.pings++;
      return;
    }
    if (xid < 0) return;
    this.requests++;
    if (WRITE_OPCODES.has(type)) this.writes++;
    this.byOp.set(type, (this.byOp.get(type) ?? 0) + 1);
  }

  /**
   * A server frame (length prefix included). A notification is the reply header (xid -1, zxid,
   * err) followed by the event's type, state and path.
   */
  serverFrame(frame: Buffer): void {
    if (frame.length < 8 || frame.readInt32BE(4) !== NOTIFICATION_XID) return;
    this.notifications++;
    const type = frame.length >= 24 ? frame.readInt32BE(20) : Number.NaN;
    this.byEvent.set(type, (this.byEvent.get(type) ?? 0) + 1);
  }

  /** The counts so far. */
  snapshot(): WireTally {
    const byOp: Record<string, number> = {};
    for (const [op, n] of this.byOp) byOp[opName(op)] = n;
    const notificationsByType: Record<string, number> = {};
    for (const [type, n] of this.byEvent) notificationsByType[eventName(type)] = n;
    return { requests: this.requests, writes: this.writes, byOp, notifications: this.notifications, notificationsByType, pings: this.pings };
  }
}
