import { debugReleased } from '../diagnostics/debug.js';
import { isZkError } from '../errors.js';
import { withoutSequence } from '../nodes/index.js';
import type { RetryBudget } from '../retry/RetryBudget.js';
import type { ZkSession } from '../session/ZkSession.js';
import type { EngineScope } from './EngineScope.js';
import { GhostSweeps } from './GhostSweeps.js';
import { isSeatLost } from './holding.js';
import type { QueueNode } from './ownNode.js';
import type { StepRetries } from './StepRetries.js';

/** The pause of a release's delete once the retry policy has given up (see `deleteSeat`). */
const GUARANTEED_DELETE_PAUSE_MS = 1000;

/**
 * Step 5 of the walk for one lock directory (docs/architecture.md, "The lock-queue engine"):
 * deleting our node, and sweeping for nodes of creates applied late.
 */
export class QueueLeaving {
  private readonly session: ZkSession;
  /** Made for the first seat that leaves with a `ghostGuid`. */
  private sweeps: GhostSweeps | undefined;

  constructor(
    private readonly scope: EngineScope,
    /** The lock directory. */
    private readonly path: string,
    private readonly retries: StepRetries,
    /** Counts a clean-up begun in the background (the queue's `settled()` waits for it). */
    private readonly inBackground: (work: Promise<void>) => void,
  ) {
    this.session = scope.session;
  }

  /**
   * Deletes our node. If the connection is down it keeps trying until it is back or the session
   * is gone (then the server deletes the ephemeral node itself). Never deletes a node of a later
   * session, and never throws for a node that is already gone. Any other refusal (NO_AUTH: an ACL
   * without DELETE for us) rejects, and a holder's seat stays as it was: the node is still there
   * and still ours, and a later call may try again (docs/errors.md, "Releasing").
   */
  leave(seat: QueueNode): Promise<void> {
    const seats = this.scope.seats;
    const state = seats.get(seat.path);
    const own = state?.held === true ? state.own : undefined;
    // Our own delete must not read as someone else's. A holder's watch is set again if the server
    // refuses the delete, and its signal follows the session until it answers; a waiter just ends.
    if (own !== undefined) {
      own.leavingNow();
    } else {
      state?.endHolding?.();
      state?.own?.end();
    }
    // One `then` on the delete, not an async function awaiting another: every release passes here.
    return this.deleteSeat(seat).then(
      () => {
        if (own !== undefined) debugReleased(seat.path);
        state?.endHolding?.();
        own?.end();
        seats.delete(seat.path);
        // A create of this acquisition applied late may have left a node with its GUID.
        if (seat.ghostGuid !== undefined) this.sweepFor(withoutSequence(seat.name), seat.generation);
      },
      (err: unknown) => {
        if (own !== undefined) {
          own.leaveRefused();
          debugReleased(seat.path, err);
        } else seats.delete(seat.path);
        throw err;
      },
    );
  }

  /**
   * Sweeps the directory for nodes that creates of `protectedName` (`_c_<guid>-<kind>`, of session
   * `generation`) made: now, and a session timeout later.
   */
  sweepFor(protectedName: string, generation: number): void {
    this.sweeps ??= new GhostSweeps(this.scope, this.path, (path, gen) => this.deleteQuietly(path, gen), this.inBackground);
    this.sweeps.left(protectedName, generation);
  }

  /**
   * Deletes a node of ours that no seat stands for (a duplicate found by GUID, a late create),
   * quietly: a node already gone, or one we may not delete, is no error. A node that a seat of
   * this session stands for (held or waiting, e.g. a read/write downgrade's read node, which
   * carries its write node's GUID) is never deleted here, whatever its name: it is that seat's to
   * leave (docs/architecture.md, "The lost create reply"). Nothing of any seat is touched, so had
   * the node been seated meanwhile, its holder would be told of its deletion like of anyone else's.
   */
  async deleteQuietly(path: string, generation = this.session.generation): Promise<void> {
    try {
      await this.deleteSeat({ path, name: '', fencingToken: 0n, generation, signal: this.session.sessionSignal }, true);
    } catch {
      // Not ours to delete after all (e.g. NO_AUTH): nothing more we can do.
    }
  }

  /**
   * The delete of {@link leave}. Like Curator's guaranteed delete it outlives the retry policy:
   * once the policy gives up it goes on a second apart, until the session answers or ends. The
   * first attempt is a plain call; only a lost connection goes on to the retrying loop.
   */
  private deleteSeat(seat: QueueNode, quiet = false): Promise<void> {
    if (this.deletesNothing(seat, quiet)) return Promise.resolve();
    const startedAt = performance.now();
    return this.session.delete(seat.path).then(undefined, (err: unknown) => this.afterFailedDelete(seat, err, startedAt, quiet));
  }

  /**
   * Whether a delete of `seat` is to be sent no more: its holding or its session is lost (the node
   * went with the session), or, for a quiet delete, a seat of ours stands for its node.
   */
  private deletesNothing(seat: QueueNode, quiet: boolean): boolean {
    return isSeatLost(seat) || this.session.generation !== seat.generation || (quiet && this.scope.seats.has(seat.path));
  }

  /** A delete of `seat` failed with `err`: done, refused (rethrown), or retried (see {@link deleteSeat}). */
  private async afterFailedDelete(seat: QueueNode, err: unknown, startedAt: number, quiet: boolean): Promise<void> {
    const session = this.session;
    let retries: RetryBudget | undefined; // made at the first failure
    let failure = err;
    for (;;) {
      if (isZkError(failure, 'NO_NODE') || isZkError(failure, 'SESSION_LOST') || isZkError(failure, 'SESSION_CLOSED')) return;
      if (!isZkError(failure, 'CONNECTION_LOSS')) throw failure;
      let delay: number;
      try {
        retries ??= this.retries.from(startedAt);
        delay = retries.delayAfter(failure);
      } catch {
        delay = GUARANTEED_DELETE_PAUSE_MS;
      }
      await this.retries.pauseThenReconnect(delay, seat.signal);
      if (this.deletesNothing(seat, quiet)) return;
      try {
        await session.delete(seat.path);
        return;
      } catch (next) {
        failure = next;
      }
    }
  }
}
