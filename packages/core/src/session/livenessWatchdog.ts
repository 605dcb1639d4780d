/**
 * Liveness: when to ping, when a connection is dead (the TCP stack never says so when a server is
 * SIGSTOPped or partitioned), and when the ZooKeeper session must be considered lost (a
 * partitioned client is never told by the server).
 *
 * The session clock is the *send time of the last request the server answered* (pings included),
 * never the time bytes were received: watch events and late replies keep arriving through a
 * one-way partition while the server hears nothing. All times are `performance.now()` (monotonic:
 * a wall-clock step must not move a deadline).
 *
 * Why `lastAnsweredSentAt + timeout - margin` comes before anyone else can hold our lock:
 * - the server touches the session when it *reads* a request, which is after we sent it; a
 *   follower relays the touch to the leader later, never earlier; the leader expires a session on
 *   a tick boundary rounded *up* from its last touch plus the timeout. So the session cannot be
 *   expired before `lastAnsweredSentAt + timeout`, by anybody's clock running at our rate;
 * - after the expiry the leader still has to commit the close (deleting our ephemeral nodes),
 *   and another client has to hear of it and acquire: more time on our side;
 * - so the margin only covers our own lateness: the timer firing late (a busy event loop, a GC
 *   pause), the abort reaching every handle, and clock-rate drift between us and the leader
 *   (NTP slews at most 500 ppm: 10 ms of a 20 s session). A tenth of the timeout, at least
 *   100 ms, covers those with room to spare (200 ms of a 2 s session, 2 s of a 20 s one) while
 *   leaving most of the window after the read timeout (2/3) for reconnecting to another server.
 *   A stall longer than the margin is not covered by any timer: the engine asks
 *   `ZkSession.aliveAt()` before every grant, and only a fencing token protects a holder.
 */

export type WirePhase = 'connecting' | 'connected' | 'other';

export interface WatchdogInput {
  now: number;
  phase: WirePhase;
  /** When the current phase (or socket) began. */
  phaseSince: number;
  /** When bytes last arrived from any server in this generation (read timeout only). */
  lastReceivedAt: number;
  /** When the last frame was written to the current socket (pinging). */
  lastSentAt: number;
  /** Send time of the last request any server of this generation answered (-Infinity: none). */
  lastAnsweredSentAt: number;
  /** Send time of the oldest request on the current socket still unanswered (Infinity: none). */
  oldestUnansweredSentAt: number;
  /** When the last reply to one of our requests (or a connect response) was read. */
  lastRepliedAt: number;
  /** Whether this generation ever had a session (a connect response). */
  established: boolean;
  sessionTimeoutMs: number;
  connectTimeoutMs: number;
}

export type WatchdogVerdict = 'ok' | 'ping' | 'destroySocket' | 'lost';

/** The margin is this fraction of the session timeout... */
export const LOST_MARGIN_FRACTION = 0.1;
/** ...but at least this many ms. */
export const LOST_MARGIN_FLOOR_MS = 100;

/** How long before the earliest possible server-side expiry we declare `lost` (see the file comment). */
export function lostMarginMs(sessionTimeoutMs: number): number {
  return Math.max(LOST_MARGIN_FLOOR_MS, Math.ceil(sessionTimeoutMs * LOST_MARGIN_FRACTION));
}

/** When we declare `lost`: `lastAnsweredSentAt + timeout - margin`. */
export function lostDeadline(lastAnsweredSentAt: number, sessionTimeoutMs: number): number {
  return lastAnsweredSentAt + sessionTimeoutMs - lostMarginMs(sessionTimeoutMs);
}

/** Read timeout: 2/3 of the session timeout (pings go out every 1/3), as ZooKeeper's Java client. */
export function readTimeoutMs(sessionTimeoutMs: number): number {
  return Math.floor((sessionTimeoutMs * 2) / 3);
}

/**
 * Nothing written for this long: send a ping. A third of the timeout, as ZooKeeper's Java client:
 * the last answered send is then never much more than a third old, so ordinary traffic stays well
 * inside {@link relayedWithinMs}, and a stall of ours of up to about half the timeout leaves the
 * session alive. Pinging more often would buy more room for stalls, but a process that dies keeps
 * its session (and its locks, its leadership) on the server for the timeout after its last ping:
 * the more recent that ping, the later its successor takes over.
 */
export function pingIntervalMs(sessionTimeoutMs: number): number {
  return Math.floor(sessionTimeoutMs / 3);
}

/**
 * The longest gap between the send times of two answered requests over which the later answer
 * may move our deadline: the timeout, less the longest delay with which a follower relays our
 * activity to the leader (tickTime/2 ≤ timeout/4, the server granting at least 2 ticks), less
 * the margin. Normal traffic answers every ping interval; only a stall of ours opens such a gap.
 */
export function relayedWithinMs(sessionTimeoutMs: number): number {
  return sessionTimeoutMs - Math.ceil(sessionTimeoutMs / 4) - lostMarginMs(sessionTimeoutMs);
}

/**
 * How long the oldest unanswered request must have waited before "nothing answered for the read
 * timeout" drops the socket. It keeps a ping sent right after a stall of ours (nothing was sent
 * during it, so nothing could be answered) from counting as a server that does not answer.
 */
export function replyGraceMs(sessionTimeoutMs: number): number {
  return Math.floor(sessionTimeoutMs / 6);
}

/** Pure decision, unit-tested. */
export function judge(i: WatchdogInput): WatchdogVerdict {
  const t = i.sessionTimeoutMs;
  if (i.established && i.now >= lostDeadline(i.lastAnsweredSentAt, t)) return 'lost';
  if (i.phase === 'connected') {
    const read = readTimeoutMs(t);
    // A silent server (SIGSTOP, both directions cut).
    if (i.now - i.lastReceivedAt >= read) return 'destroySocket';
    // A server that answers nothing although its bytes (watch events) still arrive: it does not
    // hear us (client→server cut). Move to another server before the session runs out, so
    // `suspended` comes before `lost`. Replies still flowing (a long pipeline being worked off)
    // are progress, not silence.
    if (i.now - i.lastRepliedAt >= read && i.now - i.oldestUnansweredSentAt >= replyGraceMs(t)) return 'destroySocket';
    // The wire client pings only when the socket is idle both ways: a stream of watch events
    // would starve its pings while the server hears nothing from us.
    if (i.now - i.lastSentAt >= pingIntervalMs(t)) return 'ping';
  }
  if (i.phase === 'connecting' && i.now - i.phaseSince >= i.connectTimeoutMs) return 'destroySocket';
  return 'ok';
}

/** Polling period: fine enough for the read timeout and pings, cheap enough to ignore. */
export function pollPeriodMs(sessionTimeoutMs: number): number {
  return Math.max(20, Math.min(250, Math.floor(sessionTimeoutMs / 20)));
}

/** Delay until the next check: the polling period, or sooner if the `lost` deadline comes first. */
export function nextCheckInMs(i: WatchdogInput): number {
  const every = pollPeriodMs(i.sessionTimeoutMs);
  if (!i.established) return every;
  const untilLost = Math.ceil(lostDeadline(i.lastAnsweredSentAt, i.sessionTimeoutMs) - i.now);
  return Math.max(1, Math.min(every, untilLost));
}

/** Runs `judge` on a timer and acts on its verdict. */
export class LivenessWatchdog {
  private timer: NodeJS.Timeout | undefined;
  private running = true;

  constructor(
    private readonly sample: () => WatchdogInput,
    private readonly act: (verdict: Exclude<WatchdogVerdict, 'ok'>) => void,
  ) {}

  start(): void {
    this.schedule(this.sample());
  }

  private schedule(input: WatchdogInput): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const verdict = judge(this.sample());
      if (verdict === 'ok' || verdict === 'ping') {
        if (verdict === 'ping') this.act(verdict);
        if (this.running) this.schedule(this.sample());
        return;
      }
      // Timers run before I/O in the event loop: after a long stall of ours, the server's replies
      // may be sitting unread. Judge again after the poll phase so they count before we act.
      setImmediate(() => {
        if (!this.running) return;
        const final = judge(this.sample());
        if (final !== 'ok') this.act(final);
        if (this.running) this.schedule(this.sample());
      });
    }, nextCheckInMs(input));
    this.timer.unref();
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
