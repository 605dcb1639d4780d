/**
 * A TCP proxy on 127.0.0.1 in front of one ZooKeeper server that injects connection faults at
 * exact points of the ZooKeeper protocol. It parses the framing (4-byte big-endian length prefix;
 * the first frame each way is the connect request/response; requests start with xid + type,
 * replies with xid + zxid + err) and forwards whole frames.
 */
import net from 'node:net';
import { tallyDelta, WireCounter, type WireTally } from './wireTally.js';

/** One frame seen by the proxy (for tests that observe the wire). */
export interface FrameRecord {
  /** Connection number, from 1. */
  connection: number;
  /** `request`: client to server; `reply`: server to client (replies and notifications). */
  direction: 'request' | 'reply';
  /** Request/reply xid; undefined for the connect request/response. */
  xid: number | undefined;
  /** Request opcode (requests only; undefined for the connect request). */
  type: number | undefined;
  /** Frame length including the length prefix. */
  length: number;
  /** performance.now() when the proxy received the whole frame. */
  at: number;
}

/** Options of {@link FaultProxy.start}. */
export interface FaultProxyOptions {
  /** Upstream server port (on `targetHost`). */
  targetPort: number;
  /** Upstream server host (default `127.0.0.1`). */
  targetHost?: string;
  /** Local port; 0 (default) picks a free one. */
  port?: number;
}

class FrameParser {
  private buf: Buffer = Buffer.alloc(0);
  push(chunk: Buffer): Buffer[] {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    const out: Buffer[] = [];
    let off = 0;
    while (this.buf.length - off >= 4) {
      const len = this.buf.readInt32BE(off);
      if (len < 0 || this.buf.length - off < 4 + len) break;
      out.push(this.buf.subarray(off, off + 4 + len));
      off += 4 + len;
    }
    this.buf = this.buf.subarray(off);
    return out;
  }
}

interface Conn {
  id: number;
  client: net.Socket;
  server: net.Socket;
  /** Frames held while blackholed, per direction. */
  heldToServer: Buffer[];
  heldToClient: Buffer[];
  requestsSeen: number;
  repliesSeen: number;
  /** xid whose reply must be swallowed, then the connection cut. */
  cutOnReplyXid: number | undefined;
  closed: boolean;
  /** The tallied requests sent on this connection and not answered yet: xid -> `<opcode> <path>`. */
  unanswered: Map<number, string>;
  /** How many of `unanswered` each key has. */
  inFlight: Map<string, number>;
}

/** Records at most this many frames (a test observing the wire needs the recent ones). */
const MAX_RECORDS = 10_000;

/** Opcodes of requests whose body starts with the node's path (create, delete, exists, reads, writes, checks). */
const PATH_FIRST = new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 15, 19, 21]);

/**
 * A TCP proxy on 127.0.0.1 in front of one ZooKeeper server, for tests: clients connect to
 * {@link FaultProxy.connectString}; it forwards whole frames, counts them ({@link FaultProxy.tally}),
 * and injects connection faults at exact points of the protocol (partitions of either direction,
 * dropped connections, a cut after a given request or in the middle of a reply).
 */
export class FaultProxy {
  private readonly server: net.Server;
  private readonly conns = new Set<Conn>();
  private nextId = 1;
  private holding = false;
  /** Holding only the server's frames (see holdReplies). */
  private holdingReplies = false;
  /** Holding only the client's frames (see holdRequests). */
  private holdingRequests = false;
  private refusing = false;
  private healTimer: NodeJS.Timeout | undefined;
  private healWaiters: Array<() => void> = [];
  private midReplyCut: { minLength: number; done: () => void } | undefined;
  private requestCut: { opCode: number; pass: number; done: () => void } | undefined;
  private requestDrop: { opCode: number; done: () => void } | undefined;
  /** Frames seen, oldest first (bounded). */
  readonly frames: FrameRecord[] = [];
  /** Requests seen since the start, by `<opcode> <path>` (unbounded, unlike `frames`). */
  private readonly requestsByPath = new Map<string, number>();
  /** Replies seen to those requests, by `<opcode> <path>`. */
  private readonly answered = new Map<string, number>();
  /** Bytes of the replies to them, by the same key. */
  private readonly replyTally = new Map<string, number>();
  /** The most of them one connection had unanswered at once, by the same key. */
  private readonly peakTally = new Map<string, number>();
  /** Requests, writes and notifications since the start (see {@link tally}). */
  private readonly counter = new WireCounter();
  private readonly targetHost: string;
  private readonly targetPort: number;
  private _port = 0;

  private constructor(options: FaultProxyOptions) {
    this.targetHost = options.targetHost ?? '127.0.0.1';
    this.targetPort = options.targetPort;
    this.server = net.createServer((socket) => this.accept(socket));
  }

  /** Starts a proxy listening on 127.0.0.1. */
  static async start(options: FaultProxyOptions): Promise<FaultProxy> {
    const proxy = new FaultProxy(options);
    await new Promise<void>((resolve, reject) => {
      proxy.server.once('error', reject);
      proxy.server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
    });
    proxy._port = (proxy.server.address() as net.AddressInfo).port;
    return proxy;
  }

  /**
   * How many requests with this opcode and path clients have sent since the proxy started (every
   * one, however many frames passed since: for counting what a burst of thousands asked for).
   */
  requestsTo(opCode: number, path: string): number {
    return this.requestsByPath.get(`${opCode} ${path}`) ?? 0;
  }

  /**
   * What the clients behind this proxy cost the server since it started: requests by opcode,
   * writes, and the watch notifications delivered (see {@link WireTally}). Put one session behind
   * each proxy to count per session. A snapshot: pass it to {@link tallySince} later.
   */
  tally(): WireTally {
    return this.counter.snapshot();
  }

  /** What happened since `mark` (an earlier {@link tally}). */
  tallySince(mark: WireTally): WireTally {
    return tallyDelta(this.counter.snapshot(), mark);
  }

  /**
   * How many of those requests the server has answered (their replies passed the proxy): for a
   * request that sets a watch (a getChildren, getData or exists of `path`), that the server holds
   * the watch now — ZooKeeper 3.8's four-letter words list data watches only, not child watches.
   */
  answersTo(opCode: number, path: string): number {
    return this.answered.get(`${opCode} ${path}`) ?? 0;
  }

  /** How many bytes the server answered those requests with (see {@link requestsTo}), since the proxy started. */
  replyBytesTo(opCode: number, path: string): number {
    return this.replyTally.get(`${opCode} ${path}`) ?? 0;
  }

  /**
   * The most of those requests one connection (one client's session) had sent and not yet had
   * answered at the same time, since the proxy started or {@link resetPeaks}.
   */
  peakInFlightTo(opCode: number, path: string): number {
    return this.peakTally.get(`${opCode} ${path}`) ?? 0;
  }

  /** Starts {@link peakInFlightTo} again from what is in flight now. */
  resetPeaks(): void {
    this.peakTally.clear();
    for (const c of this.conns) for (const [key, n] of c.inFlight) this.peakTally.set(key, Math.max(n, this.peakTally.get(key) ?? 0));
  }

  /** The proxy's port. */
  get port(): number {
    return this._port;
  }

  /** `127.0.0.1:<port>`: give this to the client instead of the server's address. */
  get connectString(): string {
    return `127.0.0.1:${this._port}`;
  }

  /**
   * Opcodes of the requests clients sent since `frames.length` was `mark`, in order: what a session
   * asked the server for, without pings and the other negative-xid frames.
   */
  requestTypesSince(mark: number): Array<number | undefined> {
    return this.frames.slice(mark).filter((f) => f.direction === 'request' && (f.xid ?? 0) >= 0).map((f) => f.type);
  }

  /** Number of client connections currently open through the proxy. */
  get connectionCount(): number {
    return this.conns.size;
  }

  /**
   * While true, new client connections are closed as soon as they are accepted (a server that is
   * down); existing ones are untouched. Combine with dropConnections() to take the server "away".
   */
  refuseConnections(refuse = true): void {
    this.refusing = refuse;
  }

  /** Destroys every current connection (both sides). New connections are accepted. */
  dropConnections(): void {
    for (const c of [...this.conns]) this.destroy(c);
  }

  /**
   * Holds all traffic both ways (sockets stay open, nothing is delivered: a partition or a hung
   * network). With `ms`, heals after that long; the returned promise resolves when healed.
   */
  blackhole(ms?: number): Promise<void> {
    this.holding = true;
    if (this.healTimer) clearTimeout(this.healTimer);
    this.healTimer = undefined;
    const healed = new Promise<void>((resolve) => this.healWaiters.push(resolve));
    if (ms !== undefined) {
      this.healTimer = setTimeout(() => this.heal(), ms);
    }
    return healed;
  }

  /**
   * Holds the server's frames (replies and watch events) while requests still reach the server:
   * the server acts on them, the client learns nothing until {@link heal}. For making a client
   * decide on a listing that is out of date by the time its next requests arrive.
   */
  holdReplies(): void {
    this.holdingReplies = true;
  }

  /**
   * Holds the client's frames (requests and pings) while the server's still reach the client: a
   * one-way partition. The server hears nothing and expires the session; the client keeps
   * receiving watch events and replies to what it sent before, which prove nothing about whether
   * the server still hears it. Ends with {@link heal}.
   */
  holdRequests(): void {
    this.holdingRequests = true;
  }

  /**
   * Ends a blackhole, {@link holdReplies} or {@link holdRequests}: delivers what was held, in order
   * and in one write per direction (so the other side reads it all at once), and forwards again.
   */
  heal(): void {
    if (this.healTimer) clearTimeout(this.healTimer);
    this.healTimer = undefined;
    this.holding = false;
    this.holdingReplies = false;
    this.holdingRequests = false;
    for (const c of this.conns) {
      if (c.heldToServer.length > 0) c.server.write(Buffer.concat(c.heldToServer.splice(0)));
      if (c.heldToClient.length > 0) c.client.write(Buffer.concat(c.heldToClient.splice(0)));
    }
    for (const w of this.healWaiters.splice(0)) w();
  }

  /**
   * Forwards only the first half of the next server→client frame (after the connect response) of
   * at least `minLength` bytes, then closes both sockets. Resolves when the cut happened.
   */
  cutMidNextReply(options: { minLength?: number } = {}): Promise<void> {
    return new Promise<void>((resolve) => {
      this.midReplyCut = { minLength: options.minLength ?? 0, done: resolve };
    });
  }

  /**
   * Forwards the next client request with this opcode to the server, then swallows the server's
   * reply to it and destroys the connection: the server applied the request, the client never
   * learns the result. Resolves when the connection was cut. With `pass`, that many requests with
   * this opcode go through untouched first (the cut lands half-way through a sequence).
   */
  cutAfterNextRequest(opCode: number, pass = 0): Promise<void> {
    return new Promise<void>((resolve) => {
      this.requestCut = { opCode, pass, done: resolve };
    });
  }

  /**
   * Swallows the next client request with this opcode (the server never sees it) and destroys the
   * connection: a request lost with its connection, e.g. a write sent and forgotten. Resolves
   * `true` when the connection was cut; `false` if `signal` aborted first (the drop is disarmed).
   * One drop is armed at a time: a later call replaces an earlier one, which never resolves.
   */
  dropNextRequest(opCode: number, options: { signal?: AbortSignal } = {}): Promise<boolean> {
    const { signal } = options;
    if (signal?.aborted === true) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const drop = { opCode, done: () => resolve(true) };
      this.requestDrop = drop;
      signal?.addEventListener(
        'abort',
        () => {
          if (this.requestDrop !== drop) return;
          this.requestDrop = undefined;
          resolve(false);
        },
        { once: true },
      );
    });
  }

  /** Stops listening and destroys every connection. */
  async close(): Promise<void> {
    this.heal();
    this.dropConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket): void {
    if (this.refusing) {
      client.destroy();
      return;
    }
    const server = net.connect(this.targetPort, this.targetHost);
    client.setNoDelay(true);
    server.setNoDelay(true);
    const c: Conn = {
      id: this.nextId++,
      client,
      server,
      heldToServer: [],
      heldToClient: [],
      requestsSeen: 0,
      repliesSeen: 0,
      cutOnReplyXid: undefined,
      closed: false,
      unanswered: new Map(),
      inFlight: new Map(),
    };
    this.conns.add(c);
    const up = new FrameParser();
    const down = new FrameParser();
    client.on('data', (chunk: Buffer) => {
      for (const f of up.push(chunk)) this.onRequest(c, f);
    });
    server.on('data', (chunk: Buffer) => {
      for (const f of down.push(chunk)) this.onReply(c, f);
    });
    const end = (): void => this.destroy(c);
    client.on('close', end);
    server.on('close', end);
    client.on('error', end);
    server.on('error', end);
  }

  private record(r: FrameRecord): void {
    this.frames.push(r);
    if (this.frames.length > MAX_RECORDS) this.frames.splice(0, this.frames.length - MAX_RECORDS);
  }

  private onRequest(c: Conn, frame: Buffer): void {
    if (c.closed) return;
    const first = c.requestsSeen++ === 0;
    const xid = first || frame.length < 12 ? undefined : frame.readInt32BE(4);
    const type = first || frame.length < 12 ? undefined : frame.readInt32BE(8);
    this.record({ connection: c.id, direction: 'request', xid, type, length: frame.length, at: performance.now() });
    if (xid !== undefined && type !== undefined) this.counter.request(xid, type);
    if (type !== undefined && PATH_FIRST.has(type) && frame.length >= 16) {
      const pathLength = frame.readInt32BE(12);
      if (pathLength >= 0 && frame.length >= 16 + pathLength) {
        const key = `${type} ${frame.toString('utf8', 16, 16 + pathLength)}`;
        this.requestsByPath.set(key, (this.requestsByPath.get(key) ?? 0) + 1);
        if (xid !== undefined) {
          c.unanswered.set(xid, key);
          const inFlight = (c.inFlight.get(key) ?? 0) + 1;
          c.inFlight.set(key, inFlight);
          if (inFlight > (this.peakTally.get(key) ?? 0)) this.peakTally.set(key, inFlight);
        }
      }
    }
    if (this.holding || this.holdingRequests) {
      c.heldToServer.push(frame);
      return;
    }
    const drop = this.requestDrop;
    if (drop !== undefined && type !== undefined && type === drop.opCode) {
      this.requestDrop = undefined;
      this.destroy(c);
      drop.done();
      return;
    }
    c.server.write(frame);
    if (this.requestCut && type !== undefined && type === this.requestCut.opCode) {
      if (this.requestCut.pass > 0) this.requestCut.pass--;
      else c.cutOnReplyXid = xid;
    }
  }

  private onReply(c: Conn, frame: Buffer): void {
    if (c.closed) return;
    const first = c.repliesSeen++ === 0;
    const xid = first || frame.length < 8 ? undefined : frame.readInt32BE(4);
    this.record({ connection: c.id, direction: 'reply', xid, type: undefined, length: frame.length, at: performance.now() });
    const key = xid === undefined || xid < 0 ? undefined : c.unanswered.get(xid);
    if (key !== undefined) {
      c.unanswered.delete(xid!);
      c.inFlight.set(key, c.inFlight.get(key)! - 1);
      this.answered.set(key, (this.answered.get(key) ?? 0) + 1);
      this.replyTally.set(key, (this.replyTally.get(key) ?? 0) + frame.length);
    }
    if (!first) this.counter.serverFrame(frame);
    if (c.cutOnReplyXid !== undefined && xid === c.cutOnReplyXid) {
      const cut = this.requestCut;
      this.requestCut = undefined;
      this.destroy(c);
      cut?.done();
      return;
    }
    if (this.holding || (this.holdingReplies && !first)) {
      c.heldToClient.push(frame);
      return;
    }
    const mid = this.midReplyCut;
    if (!first && mid && frame.length >= mid.minLength) {
      this.midReplyCut = undefined;
      const half = Math.max(1, Math.floor(frame.length / 2));
      // end() (not destroy) so the partial frame really reaches the client before the FIN.
      c.closed = true;
      this.conns.delete(c);
      c.server.destroy();
      c.client.end(frame.subarray(0, half), () => {
        c.client.destroy();
        mid.done();
      });
      return;
    }
    c.client.write(frame);
  }

  private destroy(c: Conn): void {
    if (c.closed) return;
    c.closed = true;
    this.conns.delete(c);
    c.client.destroy();
    c.server.destroy();
  }
}
