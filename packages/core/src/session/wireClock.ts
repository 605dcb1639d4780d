/**
 * The times the liveness watchdog judges from, for one generation (one ZooKeeper session):
 * when bytes last arrived, when a frame was last written, and the send time of the last request a
 * server answered. Fed by `wireHardening.ts`, which sees every frame written and read.
 *
 * Matching replies to send times: every frame after the connect request is logged with its xid
 * when it is handed to the socket (our requests, the wire client's pings (xid -2), set-watches,
 * close-session). A reply with xid X is matched to the oldest logged frame with xid X. TCP
 * delivers in order, so the server had read every frame logged before it too: those entries are
 * dropped with it. Pings all carry xid -2, but the server answers one connection's requests in
 * order, pings included, so the oldest outstanding ping is the one answered. Auth packets (xid -4)
 * are not logged: the server answers them at once, out of order, and without touching the
 * session. The connect request is timed apart (it is written before any of this is installed);
 * a connect response with a positive timeout proves the server read it and touched the session.
 *
 * The time recorded is when the frame was handed to `socket.write`, which is never after it left
 * (writes are held until the end of the tick, see `writeBatching.ts`): an early time only moves
 * our deadline earlier.
 */
import type { Socket } from 'node:net';
import { XID } from './frames.js';
import { lostDeadline, relayedWithinMs } from './livenessWatchdog.js';

/** Send times of one socket's unanswered frames, oldest first. Two number arrays: no object per frame. */
export class SendLog {
  private xids: number[] = [];
  private times: number[] = [];
  private head = 0;

  get size(): number {
    return this.xids.length - this.head;
  }

  record(xid: number, at: number): void {
    this.xids.push(xid);
    this.times.push(at);
  }

  /**
   * A reply with `xid` arrived: returns the send time of the oldest frame logged with that xid,
   * dropping it and every frame logged before it; undefined (and nothing dropped) if none matches.
   */
  answered(xid: number): number | undefined {
    const xids = this.xids;
    for (let i = this.head; i < xids.length; i++) {
      if (xids[i] !== xid) continue;
      const at = this.times[i]!;
      this.head = i + 1;
      if (this.head === xids.length) {
        xids.length = 0;
        this.times.length = 0;
        this.head = 0;
      } else if (this.head >= 1024 && this.head * 2 >= xids.length) {
        xids.splice(0, this.head);
        this.times.splice(0, this.head);
        this.head = 0;
      }
      return at;
    }
    return undefined;
  }

  /** Send time of the oldest frame still unanswered; Infinity when none is. */
  get oldestAt(): number {
    return this.head < this.times.length ? this.times[this.head]! : Infinity;
  }
}

export class WireClock {
  /** When bytes last arrived from any server. */
  lastReceivedAt: number;
  /** When a frame was last written to the current socket. */
  lastSentAt: number;
  /** When a reply to one of our frames (or a connect response) was last read. */
  lastRepliedAt: number;
  /** Send time of the last request a server answered; -Infinity before the first connect response. */
  lastAnsweredSentAt = -Infinity;
  /**
   * `lostDeadline(lastAnsweredSentAt, timeout)`, kept current so that `ZkSession.aliveAt()` is
   * one clock read and one compare.
   */
  deadline = -Infinity;
  private timeoutMs: number;
  private socket: Socket | undefined;
  private log = new SendLog();
  private connectSentAt = 0;

  constructor(now: number, requestedTimeoutMs: number) {
    this.lastReceivedAt = now;
    this.lastSentAt = now;
    this.lastRepliedAt = now;
    this.timeoutMs = requestedTimeoutMs;
  }

  /** A new socket wrote its connect request at `at`; frames of earlier sockets are forgotten. */
  socketConnected(socket: Socket, at: number): void {
    this.socket = socket;
    this.log = new SendLog();
    this.connectSentAt = at;
    this.lastSentAt = at;
  }

  /** Whether `socket` is the one whose frames are being logged. */
  isCurrent(socket: Socket | undefined): boolean {
    return socket !== undefined && socket === this.socket;
  }

  /** A frame with `xid` was handed to the current socket at `at`. */
  sent(xid: number, at: number): void {
    this.lastSentAt = at;
    if (xid !== XID.auth) this.log.record(xid, at);
  }

  received(at: number): void {
    this.lastReceivedAt = at;
  }

  /** The connect response granted a session (timeout > 0) at `now`: the server read our connect request. */
  connectAnswered(negotiatedTimeoutMs: number, now: number): void {
    this.timeoutMs = negotiatedTimeoutMs;
    this.lastRepliedAt = now;
    // The server that answers a connect for an existing session has the leader revalidate it:
    // proof from the leader itself, whatever the gap since our last answer.
    this.answeredAt(this.connectSentAt);
  }

  /** A reply (not a notification, not an auth reply) with `xid` arrived on the current socket at `now`. */
  replied(xid: number, now: number): void {
    const at = this.log.answered(xid);
    if (at === undefined) return;
    this.lastRepliedAt = now;
    // A follower answers from its own view, and tells the leader of our activity only on the
    // leader's next ping (every tickTime/2; tickTime ≤ timeout/2, so within timeout/4). After a
    // gap longer than `relayedWithinMs` the leader may expire the session on our *previous*
    // answer before this one's report arrives: such an answer proves nothing, and the deadline
    // stays where it was (docs/architecture.md, "When we declare lost").
    if (at - this.lastAnsweredSentAt > relayedWithinMs(this.timeoutMs)) return;
    this.answeredAt(at);
  }

  /**
   * A SASL reply with `xid` arrived at `now` (before the connect response was handed on): its
   * request leaves the log, but the deadline does not move. The server answers SASL outside its
   * request pipeline and touches no session for it.
   */
  handshakeReplied(xid: number, now: number): void {
    if (this.log.answered(xid) !== undefined) this.lastRepliedAt = now;
  }

  /** Send time of the oldest unanswered frame on the current socket; Infinity when none. */
  get oldestUnansweredSentAt(): number {
    return this.log.oldestAt;
  }

  private answeredAt(sentAt: number): void {
    if (sentAt <= this.lastAnsweredSentAt) return;
    this.lastAnsweredSentAt = sentAt;
    this.deadline = lostDeadline(sentAt, this.timeoutMs);
  }
}

/**
 * Logs every frame written to `socket` (after the connect request) in `clock`. Each call of
 * `socket.write` by the wire client is one whole frame: length, xid, type, body.
 */
export function logSocketWrites(socket: Socket, clock: WireClock, now: () => number): void {
  const write = socket.write;
  socket.write = function loggedWrite(this: Socket, chunk: unknown, a?: unknown, b?: unknown): boolean {
    if (Buffer.isBuffer(chunk) && chunk.length >= 12 && clock.isCurrent(socket)) clock.sent(chunk.readInt32BE(4), now());
    return (write as (c: unknown, a?: unknown, b?: unknown) => boolean).call(this, chunk, a, b);
  } as Socket['write'];
}
