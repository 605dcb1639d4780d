import { isZkError } from '../errors.js';
import { joinPath } from '../nodes/index.js';
import type { EngineScope } from './EngineScope.js';

/** One create's nodes to look for, from when, in which ZooKeeper session (its nodes go with it). */
interface Due {
  /** The protected name the create asked for, `_c_<guid>-<kind>` (see `EngineScope.namesCreatedAs`). */
  protectedName: string;
  at: number;
  generation: number;
}

/** Sweeps of one directory are at least this fraction of the session timeout apart. */
const SPACING_OF_TIMEOUT = 1 / 10;

/**
 * The sweeps of one lock directory for nodes of creates applied late (docs/architecture.md, "The
 * lost create reply"): a seat whose first create lost its reply and was not found carries that
 * create's GUID, and when it leaves, the directory is swept for nodes that create made (its GUID
 * and its kind) at once and once more a session timeout later. A node a seat of this session
 * stands for is never deleted (`QueueLeaving.deleteQuietly`), whatever its name.
 *
 * Every acquisition of a burst cut by a blip may carry one, and they leave one after another: a
 * listing per leave would be N listings of an N-node directory. So the sweeps of one directory are
 * shared: each lists once (`EngineScope.nextListing`) and looks for every create due by then or later
 * (a late node found early only goes early), and they are at least a tenth of the session timeout
 * apart. A late node thus stands in the queue at most that much longer than without sharing; the
 * listings of a drain are bounded by its length, not by its number of acquisitions.
 */
export class GhostSweeps {
  private due: Due[] = [];
  private sweeping: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = Infinity;
  private lastSweepAt = -Infinity;

  constructor(
    private readonly scope: EngineScope,
    private readonly dir: string,
    /** Deletes one node of session `generation`, quietly (a node already gone is fine). */
    private readonly remove: (path: string, generation: number) => Promise<void>,
    /** Tells the queue of a sweep begun now (its `settled()` waits for it). */
    private readonly begun: (sweep: Promise<void>) => void,
  ) {}

  /**
   * The seat whose creates asked for `protectedName` (in session `generation`) left: sweep for
   * their nodes now, and a session timeout later.
   */
  left(protectedName: string, generation: number): void {
    const now = performance.now();
    this.due.push({ protectedName, at: now, generation }, { protectedName, at: now + this.scope.session.negotiatedSessionTimeoutMs, generation });
    this.plan();
  }

  /** Starts the next sweep when it is due, or sets the timer for it. */
  private plan(): void {
    if (this.sweeping !== undefined || this.due.length === 0) return;
    let earliest = Infinity;
    for (const each of this.due) earliest = Math.min(earliest, each.at);
    const at = Math.max(earliest, this.lastSweepAt + this.scope.session.negotiatedSessionTimeoutMs * SPACING_OF_TIMEOUT);
    const now = performance.now();
    if (at <= now) {
      this.start(now);
      return;
    }
    if (this.timer !== undefined && this.timerAt <= at) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.plan();
    }, at - now);
    this.timer.unref();
  }

  private start(now: number): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
    this.lastSweepAt = now;
    const sweep = this.sweep(now).catch(() => undefined).finally(() => {
      this.sweeping = undefined;
      this.plan();
    });
    this.sweeping = sweep;
    this.begun(sweep);
  }

  /** One listing, sent after `now`: deletes every node of a create due, and forgets what was due by `now`. */
  private async sweep(now: number): Promise<void> {
    const session = this.scope.session;
    const generation = session.generation;
    // A lost session's nodes went with it: nothing of it is looked for on its successor.
    this.due = this.due.filter((each) => each.generation === generation);
    const creates = new Set(this.due.map((each) => each.protectedName));
    if (creates.size === 0) return;
    let children: string[];
    try {
      await session.waitForConnected(session.sessionSignal);
      children = await this.scope.nextListing(this.dir);
    } catch (err) {
      // A lost connection: looked for again at the next sweep. The session ended (its nodes
      // with it) or the directory went (with them): nothing is left to look for now.
      if (session.generation !== generation) this.due = [];
      else if (!isZkError(err, 'CONNECTION_LOSS')) this.due = this.due.filter((each) => each.at > now);
      return;
    }
    this.due = this.due.filter((each) => each.at > now);
    for (const protectedName of creates) {
      for (const name of this.scope.namesCreatedAs(children, protectedName)) await this.remove(joinPath(this.dir, name), generation);
    }
  }
}
