/**
 * Work-arounds for node-zookeeper-client 1.1.3 (version asserted in `wire.ts`), installed on each
 * ConnectionManager instance before it connects:
 *
 * 1. Mid-frame drop wedge: the original `onSocketData` keeps a partial frame in `pendingBuffer`
 *    across connections, so the next connect response is parsed at the wrong offset and the
 *    client never recovers. Our interceptor keeps its own per-socket FrameSplitter (a new socket
 *    gets a new one) and hands the original handler exactly one complete frame at a time.
 * 2. Unknown error codes throw inside the original handler (`Exception.create` → validateCode)
 *    and the callback never fires. Every reply to one of OUR requests is decoded here, never by the
 *    original, so any code reaches our error mapping.
 * 7. The original handler throws on surprises (unknown notification types, ...) inside the socket
 *    'data' listener: we catch, report, and reset the connection instead of crashing the process.
 *
 *
 * It also times the wire for the liveness watchdog (`wireClock.ts`): every frame written (the
 * connect request, then each `socket.write`) and every reply read, so that the session clock runs
 * from the send time of the last request the server answered.
 *
 * `onSocketData` is bound when the socket is created (`self.onSocketData.bind(self)` in
 * `connect()`), so replacing the instance property before `connect()` is enough.
 */
import type { Socket } from 'node:net';
import { CM_STATES, type ConnectionManager, type WireRequest } from './wire.js';
import { ReplyCode } from './errorMapping.js';
import { FrameSplitter, JuteReader, OP, XID, isPositiveZxid, readReplyHeader } from './frames.js';
import { OwnRequest } from './ownRequest.js';
import { logSocketWrites, type WireClock } from './wireClock.js';
import { installWriteBatching } from './writeBatching.js';
import { installCredentialsFirst } from './credentialsFirst.js';

/** A ping as the wire client queues it (xid -2, not kept in its pending queue); sent by `Generation.keepAlive` for the liveness watchdog. */
export const PING_REQUEST: WireRequest = {
  header: { xid: XID.ping, type: OP.ping },
  payload: null,
  toBuffer(): Buffer {
    const out = Buffer.allocUnsafe(12);
    out.writeInt32BE(8, 0);
    out.writeInt32BE(XID.ping, 4);
    out.writeInt32BE(OP.ping, 8);
    return out;
  },
};

export interface HardeningHooks {
  /**
   * Fed with every frame written and read on this generation's sockets (the liveness watchdog's
   * clock): bytes received, frames sent, replies matched to their send times.
   */
  clock: WireClock;
  /** The clock's time source (`performance.now`). */
  now(): number;
  /** Something went wrong that we recovered from by resetting the connection. */
  onError(err: Error): void;
  /** The wire client was retired: refuse all further traffic. */
  isDisposed(): boolean;
  /**
   * A watch notification (`type` 1-4: created, deleted, data changed, children changed) on
   * `serverPath` (the chroot included), told while its frame is handled, before the next frame
   * is read.
   */
  notified(type: number, serverPath: string): void;
  /**
   * Sees each frame read while the wire client waits for its connect response, before anything
   * else does, and returns the frame to go on with, if any: the SASL exchange holds the connect
   * response back until the server has authenticated us (`sasl/saslHandshake.ts`).
   */
  connecting?: ((socket: Socket, frame: Buffer) => Buffer | undefined) | undefined;
}

/** Installs the interceptor on `cm`. Must run before `cm.connect()`. */
export function installHardening(cm: ConnectionManager, hooks: HardeningHooks): void {
  installCredentialsFirst(cm);
  installWriteBatching(cm);
  const batchingConnected = cm.onSocketConnected;
  cm.onSocketConnected = function onSocketConnectedTimed(this: ConnectionManager): void {
    // The original writes the connect request synchronously, before any wrapper is on the socket.
    const at = hooks.now();
    const socket = this.socket;
    batchingConnected.call(this);
    if (socket === undefined || hooks.isDisposed()) return;
    hooks.clock.socketConnected(socket, at);
    logSocketWrites(socket, hooks.clock, hooks.now);
  };
  const original = cm.onSocketData;
  let socket: unknown = undefined;
  let splitter = new FrameSplitter();

  cm.onSocketData = function interceptSocketData(this: ConnectionManager, chunk: Buffer): void {
    const current = this.socket;
    if (hooks.isDisposed()) {
      current?.destroy();
      return;
    }
    if (current !== socket) {
      // New connection: forget any partial frame of the previous one (work-around 1).
      socket = current;
      splitter = new FrameSplitter();
    }
    const clock = hooks.clock;
    const counts = clock.isCurrent(current);
    if (counts) clock.received(hooks.now());
    let frames: Buffer[];
    try {
      frames = splitter.push(chunk);
    } catch (err) {
      hooks.onError(asError(err, 'corrupt frame from server; reconnecting'));
      current?.destroy();
      return;
    }
    for (const read of frames) {
      if (current?.destroyed) return;
      const frame = this.state === CM_STATES.CONNECTING && hooks.connecting !== undefined && current !== undefined ? hooks.connecting(current, read) : read;
      if (frame === undefined) continue;
      // The original must never see a partial frame nor keep one.
      this.pendingBuffer = null;
      if (counts) timeReply(this, frame, clock, hooks.now());
      try {
        if (!handleOwnReply(this, frame, hooks)) original.call(this, frame);
      } catch (err) {
        hooks.onError(asError(err, 'wire client failed on a server frame; reconnecting'));
        current?.destroy();
        return;
      } finally {
        this.pendingBuffer = null;
      }
    }
  };
}

function asError(err: unknown, message: string): Error {
  return new Error(message, { cause: err });
}

/** Tells the clock which request `frame` answers (before anyone acts on the frame). */
function timeReply(cm: ConnectionManager, frame: Buffer, clock: WireClock, now: number): void {
  if (frame.length < 12) return;
  if (cm.state === CM_STATES.CONNECTING) {
    // ConnectResponse: protocolVersion, timeOut, sessionId, passwd. timeOut <= 0: expired.
    const timeOut = frame.readInt32BE(8);
    if (timeOut > 0) clock.connectAnswered(timeOut, now);
    return;
  }
  const xid = frame.readInt32BE(4);
  if (xid === XID.notification || xid === XID.auth) return;
  clock.replied(xid, now);
}

/** Returns true when the frame answered one of our own requests (and was fully handled). */
function handleOwnReply(cm: ConnectionManager, frame: Buffer, hooks: HardeningHooks): boolean {
  // The connect response (first frame while CONNECTING) is the original's business.
  if (cm.state === CM_STATES.CONNECTING) return false;
  if (frame.length >= 8 && frame.readInt32BE(4) === XID.notification) {
    // Notifications are ours too (the watches are: see watchRegistry.ts). Event types other than
    // the four we set watches for (watch-removed, persistent-watch events of newer servers) are
    // dropped: the original's WatcherManager threw on them.
    const reader = new JuteReader(frame, 20);
    const type = reader.int();
    reader.int(); // the connection state: always SyncConnected for a watch event
    const path = reader.ustring();
    if (type >= 1 && type <= 4 && path !== null) hooks.notified(type, path);
    return true;
  }
  const header = readReplyHeader(frame);
  // Notifications (-1), pings (-2) and auth replies (-4) are the original's business.
  if (header.xid < 0) return false;
  const head = cm.pendingQueue[0];
  if (!head || !(head.request instanceof OwnRequest)) return false;
  if (head.request.header.xid !== header.xid) {
    // Out of order: the original would reset the connection too.
    cm.socket?.destroy();
    return true;
  }
  cm.pendingQueue.shift();
  // As ZooKeeper's Java client: only a positive zxid advances the last-seen zxid.
  if (isPositiveZxid(header.zxid)) cm.zxid = header.zxid;
  const request = head.request;
  // An error code goes on as a ReplyCode, not an Error: the session builds its error only if the
  // call rejects with it (docs/architecture.md, "The session").
  if (header.err !== 0 && !request.decodesErrors) {
    head.callback(new ReplyCode(header.err));
    return true;
  }
  let result: unknown;
  try {
    result = request.read(new JuteReader(frame, 20), header);
  } catch (err) {
    head.callback(header.err !== 0 ? new ReplyCode(header.err) : asError(err, 'could not decode the reply'));
    if (header.err !== 0) return true;
    throw err;
  }
  if (result instanceof Error || result instanceof ReplyCode) head.callback(result);
  else head.callback(null, result);
  return true;
}
