/**
 * Typed access to the parts of node-zookeeper-client we use. This file and its siblings in
 * `session/` are the only code that touches the wire client. node-zookeeper-client has no types,
 * so we declare only what we rely on, and refuse to load against any other version: every
 * work-around in `wireHardening.ts` is written against the 1.1.3 source.
 */
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';

const require = createRequire(import.meta.url);

/** The exact wire-client version the hardening was written and tested against. */
export const WIRE_CLIENT_VERSION = '1.1.3';

const installed = (require('node-zookeeper-client/package.json') as { version: string }).version;
if (installed !== WIRE_CLIENT_VERSION) {
  throw new Error(
    `@zk-recipes/core requires node-zookeeper-client ${WIRE_CLIENT_VERSION} exactly (its work-arounds ` +
      `patch that version's internals); found ${installed}`,
  );
}

/** ConnectionManager.STATES of 1.1.3. */
export const CM_STATES = {
  DISCONNECTED: 0,
  CONNECTING: 1,
  CONNECTED: 2,
  CONNECTED_READ_ONLY: 3,
  CLOSING: -1,
  CLOSED: -2,
  SESSION_EXPIRED: -3,
  AUTHENTICATION_FAILED: -4,
} as const;

/** A request as ConnectionManager.queue() expects it (duck-typed jute.Request). */
export interface WireRequest {
  header: { xid: number; type: number } | null;
  payload: { setChrootPath(path: string): void } | null;
  toBuffer(): Buffer;
}

/** What the wire client calls back with: its own Exception, or our ReplyCode, or a decoded reply. */
export type WireCallback = (error: unknown, response?: unknown) => void;

export interface PendingPacket {
  request: WireRequest;
  callback: WireCallback;
}

/** The subset of ConnectionManager (lib/ConnectionManager.js) we use or patch. */
export interface ConnectionManager {
  state: number;
  socket: Socket | undefined;
  sessionTimeout: number;
  connectTimeout: number;
  chrootPath: string | undefined;
  zxid: Buffer;
  /** The next request's xid (the SASL exchange takes its xids from it too). */
  xid: number;
  pendingBuffer: Buffer | null;
  pendingQueue: PendingPacket[];
  /** Requests not yet written (queued while disconnected). */
  packetQueue: { queue: PendingPacket[] };
  /** The connect string's servers, shuffled (lib/ConnectionStringParser.js). */
  servers: Array<{ host: string; port: number | string }>;
  /** Index of the server after the one connected to or being tried (lib/ConnectionManager.js findNextServer). */
  nextServerIndex: number;
  onSocketData(this: ConnectionManager, buffer: Buffer): void;
  onSocketConnected(this: ConnectionManager): void;
  connect(): void;
  queue(request: WireRequest, callback: WireCallback): void;
  /**
   * lib/WatcherManager.js: the watches to set again after a reconnection (SetWatches, in
   * `onSocketConnected`). We put our own in its place (`watchRegistry.ts`, `WireWatchTable`): what
   * `onSocketConnected` asks of it is all the wire client still does with watches.
   */
  watcherManager: WireWatcherManager;
  on(event: 'state', listener: (state: number) => void): void;
}

/** What ConnectionManager 1.1.3 asks of its `watcherManager` once notifications are ours. */
export interface WireWatcherManager {
  isEmpty(): boolean;
  getDataWatcherPaths(): string[];
  getExistenceWatcherPaths(): string[];
  getChildWatcherPaths(): string[];
}

/**
 * The server `cm`'s current connection goes to (findNextServer moved its index past it), named as
 * in the connect string: `host:port`.
 */
export function currentServer(cm: ConnectionManager): { host: string; port: number; address: string } {
  const n = cm.servers.length;
  const server = cm.servers[(((cm.nextServerIndex - 1) % n) + n) % n]!;
  return { host: server.host, port: Number(server.port), address: `${server.host}:${server.port}` };
}

/** lib/Event.js */
export interface WireEvent {
  getType(): number;
  getPath(): string;
}

/** The subset of the Client (index.js) we use. */
export interface WireClient {
  connectionManager: ConnectionManager;
  connect(): void;
  close(): void;
  getSessionId(): Buffer;
  getSessionPassword(): Buffer;
  getSessionTimeout(): number;
  addAuthInfo(scheme: string, auth: Buffer): void;
}

interface WireModule {
  createClient(
    connectString: string,
    options: { sessionTimeout: number; spinDelay: number; retries: number; sessionId?: Buffer; sessionPassword?: Buffer },
  ): WireClient;
}

const wireModule = require('node-zookeeper-client') as WireModule;

/** Creates (but does not connect) a wire client. */
export function createWireClient(
  connectString: string,
  sessionTimeoutMs: number,
): WireClient {
  // retries: 0 — retrying is the caller's decision (RetryPolicy), never the wire client's.
  return wireModule.createClient(connectString, { sessionTimeout: sessionTimeoutMs, spinDelay: 200, retries: 0 });
}
