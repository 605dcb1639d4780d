/**
 * Liveness watchdog: decides from the time of the last bytes received whether the connection is
 * dead (the TCP stack never says so when a server is SIGSTOPped or partitioned) and whether the
 * ZooKeeper session must be considered lost (a partitioned client is never told by the server).
 */

export type WirePhase = 'connecting' | 'connected' | 'other';

export interface WatchdogInput {
  now: number;
  phase: WirePhase;
  /** When the current phase (or socket) began. */
  phaseSince: number;
  /** When bytes last arrived from any server in this generation. */
  lastReceivedAt: number;
  /** Whether this generation ever had a session (a connect response). */
  established: boolean;
  sessionTimeoutMs: number;
  connectTimeoutMs: number;
}

export type WatchdogVerdict = 'ok' | 'destroySocket' | 'lost';

/** Read timeout: 2/3 of the session timeout (pings go out every 1/3), as ZooKeeper's Java client. */
export function readTimeoutMs(sessionTimeoutMs: number): number {
  return Math.floor((sessionTimeoutMs * 2) / 3);
}

/** Pure decision, unit-tested. */
export function judge(i: WatchdogInput): WatchdogVerdict {
  const silentFor = i.now - i.lastReceivedAt;
  if (i.established && silentFor >= i.sessionTimeoutMs) return 'lost';
  if (i.phase === 'connected' && silentFor >= readTimeoutMs(i.sessionTimeoutMs)) return 'destroySocket';
  if (i.phase === 'connecting' && i.now - i.phaseSince >= i.connectTimeoutMs) return 'destroySocket';
  return 'ok';
}

/** Runs `judge` on a timer and acts on its verdict. */
export class LivenessWatchdog {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly sample: () => WatchdogInput,
    private readonly act: (verdict: Exclude<WatchdogVerdict, 'ok'>) => void,
  ) {}

  start(): void {
    this.schedule();
  }

  private schedule(): void {
    const { sessionTimeoutMs } = this.sample();
    // Fine enough to act within a few percent of the session timeout, cheap enough to ignore.
    const every = Math.max(20, Math.min(250, Math.floor(sessionTimeoutMs / 20)));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (judge(this.sample()) === 'ok') {
        if (this.running) this.schedule();
        return;
      }
      // Timers run before I/O in the event loop: after a long stall of ours, the server's bytes may
      // be sitting unread. Judge again after the poll phase so they count before we act.
      setImmediate(() => {
        if (!this.running) return;
        const verdict = judge(this.sample());
        if (verdict !== 'ok') this.act(verdict);
        if (this.running) this.schedule();
      });
    }, every);
    this.timer.unref();
  }

  private running = true;

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
