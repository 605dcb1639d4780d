/**
 * One ZooKeeper session: one wire client, its connections, its calls in flight and its watches.
 * A `ZkSession` opens a new one after each `lost` (`openGeneration.ts`) and ends it with
 * `retireGeneration.ts` (docs/architecture.md, "The session").
 */
import type { WatchdogInput, WirePhase } from './livenessWatchdog.js';
import { ReplyCode } from './errorMapping.js';
import type { JuteReader, ReplyHeader } from './frames.js';
import { OwnRequest, type ReplyDecoder, type RequestBody } from './ownRequest.js';
import { PendingCalls } from './pendingCalls.js';
import { readRequest } from './requests.js';
import { OP } from './frames.js';
import type { WatchEvent, WatchEventType, Watcher } from './types.js';
import { CM_STATES, type ConnectionManager, type WireCallback, type WireClient } from './wire.js';
import { WireClock } from './wireClock.js';
import { WatchRegistry, WireWatchTable, type WatchClass, type WatchKind } from './watchRegistry.js';
import { PING_REQUEST } from './wireHardening.js';

/** Watch event types on the wire (Watcher.Event.EventType); others are dropped by the hardening. */
const WIRE_EVENT_TYPES: Readonly<Record<number, WatchEventType | undefined>> = {
  1: 'created',
  2: 'deleted',
  3: 'dataChanged',
  4: 'childrenChanged',
};

export class Generation {
  readonly abort = new AbortController();
  readonly pending = new PendingCalls();
  readonly watches: WatchRegistry;
  readonly cm: ConnectionManager;
  /** The session's chroot (the connect string's), prefixed to every path we send. */
  readonly chroot: string | undefined;
  /** Set once the first connect response arrived: this generation has a ZooKeeper session. */
  established = false;
  retired = false;
  /** Send and reply times of this generation's frames: the liveness clock. */
  readonly clock: WireClock;
  /** The socket `livenessSample` last saw, and since when: a new socket restarts its phase. */
  private socket: unknown = undefined;
  private socketSince: number;
  /** This generation's connect, when it waits (after refused credentials: see `Generations`' `authFailed`). */
  connectTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly n: number,
    readonly client: WireClient,
    onWatcherError: (err: Error) => void,
  ) {
    this.cm = client.connectionManager;
    this.chroot = this.cm.chrootPath;
    this.watches = new WatchRegistry(onWatcherError);
    // The watches the wire client sets again after a reconnection are ours (see WireWatchTable).
    this.cm.watcherManager = new WireWatchTable(this.watches);
    const now = performance.now();
    this.clock = new WireClock(now, this.cm.sessionTimeout);
    this.socketSince = now;
  }

  /**
   * Hands `request` to the wire client. While connected with nothing queued before it, it is
   * written here, as the wire client's `onPacketQueueReadable` (1.1.3) would write it: the next
   * xid, then the pending queue, then the socket (its packet queue and the event it emits per
   * request are skipped). Otherwise it is queued, and the wire client writes it once it can.
   */
  send(request: OwnRequest, callback: WireCallback): void {
    const cm = this.cm;
    const socket = cm.socket;
    if (this.wireConnected && cm.packetQueue.queue.length === 0 && socket !== undefined && !socket.destroyed) {
      request.header.xid = cm.xid;
      cm.xid += 1;
      cm.pendingQueue.push({ request, callback });
      socket.write(request.toBuffer());
    } else {
      cm.queue(request, callback);
    }
  }

  /** This generation's ZooKeeper session id, 16 hex characters ('0000000000000000' until connected). */
  get sessionId(): string {
    return this.client.getSessionId().toString('hex');
  }

  /** Whether the wire client has a connection with the session on it (read-only servers included). */
  get wireConnected(): boolean {
    return this.cm.state === CM_STATES.CONNECTED || this.cm.state === CM_STATES.CONNECTED_READ_ONLY;
  }

  /**
   * A GET_CHILDREN2, GET_DATA or EXISTS of `path`, its reply read by `decode` (its error replies
   * too with `decodesErrors`: NO_NODE answers an EXISTS, or an `...IfExists` read, with null). With
   * a `watcher`, the server sets a watch, and the reply registers ours at once (in the socket
   * handler, before any event the server sends after that reply can be read): on the children, on
   * the data, or (an EXISTS of a missing node) on the node's creation.
   */
  read<T>(type: ReadOp, path: string, decode: ReplyDecoder<T>, watcher: Watcher | undefined, decodesErrors = type === OP.exists): OwnRequest {
    const body = readRequest(type, this.chroot, path, watcher !== undefined);
    if (watcher === undefined) return new OwnRequest(body, decode, decodesErrors);
    return new WatchingRead(body, decode, decodesErrors, this, type, path, watcher);
  }

  /** @internal Registers `watcher` (the server set the watch: see `watchRegistry.ts`). */
  addWatch(kind: WatchKind, path: string, watcher: Watcher): void {
    if (this.retired) return;
    this.watches.add(kind, path, watcher);
  }

  /**
   * A watch notification read off the wire (`type` as ZooKeeper numbers it, `path` without the
   * chroot), while the frame is being handled: the watches it ends are told (their `onArrival` at
   * once, the watchers a turn later, see `WatchRegistry`).
   */
  notified(type: number, path: string): void {
    const eventType = WIRE_EVENT_TYPES[type];
    if (eventType !== undefined && !this.retired) this.watches.notified({ type: eventType, path } satisfies WatchEvent);
  }

  /**
   * Forgets `watcher` on `path`, and each watch no other watcher of ours still needs (so no
   * reconnection sets it again). Returns the classes of server-side watch that are now ours to
   * remove from the server (see `WatchRegistry.takeIfIdle`).
   */
  forgetIdleWatches(path: string, watcher: Watcher): WatchClass[] {
    const classes: WatchClass[] = [];
    for (const { watchClass } of this.watches.takeIfIdle(path, watcher)) classes.push(watchClass);
    return classes;
  }

  /**
   * The liveness watchdog's remedies short of `lost`: a ping, or dropping a silent connection so
   * that the wire client moves to the next server (docs/architecture.md,
   * "The wire client's sharp edges", 3).
   */
  keepAlive(verdict: 'ping' | 'destroySocket'): void {
    if (verdict === 'ping') this.cm.queue(PING_REQUEST, noop);
    else this.cm.socket?.destroy();
  }

  /** What the liveness watchdog judges this generation by, now. */
  livenessSample(): WatchdogInput {
    const cm = this.cm;
    const now = performance.now();
    const clock = this.clock;
    if (cm.socket !== this.socket) {
      this.socket = cm.socket;
      this.socketSince = now;
    }
    let phase: WirePhase = 'other';
    if (this.wireConnected) phase = 'connected';
    else if (cm.state === CM_STATES.CONNECTING && cm.socket && !cm.socket.destroyed && !cm.socket.connecting) phase = 'connecting';
    return {
      now,
      phase,
      phaseSince: this.socketSince,
      lastReceivedAt: clock.lastReceivedAt,
      lastSentAt: clock.lastSentAt,
      lastAnsweredSentAt: clock.lastAnsweredSentAt,
      oldestUnansweredSentAt: clock.oldestUnansweredSentAt,
      lastRepliedAt: clock.lastRepliedAt,
      established: this.established,
      sessionTimeoutMs: cm.sessionTimeout,
      // The wire client times out the TCP connect; we time out the connect RESPONSE (a stopped
      // server's kernel still accepts the TCP connection).
      connectTimeoutMs: Math.min(cm.connectTimeout, Math.floor(cm.sessionTimeout / 3)),
    };
  }
}

function noop(): void {}

type ReadOp = typeof OP.getChildren2 | typeof OP.getData | typeof OP.exists;

/** A read that sets a watch: registered as its reply is read, if the server set one. */
class WatchingRead extends OwnRequest {
  constructor(
    body: RequestBody,
    decode: ReplyDecoder,
    decodesErrors: boolean,
    private readonly gen: Generation,
    private readonly op: ReadOp,
    private readonly path: string,
    private readonly watcher: Watcher,
  ) {
    super(body, decode, decodesErrors);
  }

  override read(reader: JuteReader, header: ReplyHeader): unknown {
    const reply = this.decode(reader, header);
    if (reply instanceof Error || reply instanceof ReplyCode) return reply;
    const op = this.op;
    // A missing node: an EXISTS sets a watch for its creation, the other reads set none.
    if (reply === null && op !== OP.exists) return reply;
    this.gen.addWatch(op === OP.getChildren2 ? 'child' : op === OP.exists && reply === null ? 'exist' : 'data', this.path, this.watcher);
    return reply;
  }
}
