/**
 * A session's generations: the current one (one ZooKeeper session, `generation.ts`), the liveness
 * watchdog on it, what its reports mean for the session's connection state, and the next one,
 * opened after each `lost` (docs/architecture.md, "The session"). Only the current generation
 * moves the state, and none does once `close()` has begun.
 */
import { SessionClosedError, SessionLostError, type AuthFailedError } from '../errors.js';
import type { ConnectFailFast } from './connectFailFast.js';
import { digestAuthFailed } from './digestAuthFailure.js';
import { closedCallError, expiredReason, lostCallError, noReplyReason } from './endReasons.js';
import type { Generation } from './generation.js';
import { LivenessWatchdog } from './livenessWatchdog.js';
import { openGeneration, type GenerationListener } from './openGeneration.js';
import type { ZkSessionOptions } from './options.js';
import { closeGeneration, retireGeneration } from './retireGeneration.js';
import type { ConnectionState } from './types.js';
import { CM_STATES } from './wire.js';

/** What the generations need of their session. */
export interface GenerationsHost {
  /** Whether `close()` has begun. */
  closing(): boolean;
  /** Whether the session's state is `connected` or `reconnected`. */
  isConnected(): boolean;
  /** The session's state is now `state` (`lost` with its reason). */
  transition(state: ConnectionState, reason?: SessionLostError): void;
  /** A failure we recovered from, for the session's `error` event. */
  error(err: Error): void;
}

export class Generations {
  /** The current ZooKeeper session; a new one after each `lost`. */
  current: Generation;
  /** Set by connect() while it waits for the first session: failures that end the wait at once. */
  failFast: ConnectFailFast | undefined;
  private readonly watchdog: LivenessWatchdog;
  /** How every generation reports to us. */
  private readonly listener: GenerationListener = {
    wireState: (gen, state) => this.onWireState(gen, state),
    wireFailed: (gen, err, address) => {
      // Before the first session, during connect(): connect() fails with one clear error.
      if (!gen.established && this.failFast !== undefined) this.failFast.serverFailed(err, address);
      else this.host.error(err);
    },
    connectAttempt: (gen, address, state) => {
      if (!gen.established) this.failFast?.attempted(address, state);
    },
    saslFailed: (gen, err) => this.authFailed(gen, err),
    watcherFailed: (err) => this.host.error(err),
    firstConnectPending: () => this.failFast !== undefined,
  };

  /** Opens generation 1 and starts watching its liveness. */
  constructor(
    private readonly options: ZkSessionOptions,
    private readonly host: GenerationsHost,
  ) {
    this.current = openGeneration(1, options, this.listener);
    this.watchdog = new LivenessWatchdog(
      () => this.current.livenessSample(),
      (verdict) => {
        const gen = this.current;
        if (gen.retired) return;
        if (verdict === 'lost') this.outOfTime(gen);
        else gen.keepAlive(verdict);
      },
    );
    this.watchdog.start();
  }

  /**
   * No server answered `gen` for its session timeout less the margin (the watchdog's verdict, or
   * `ZkSession.aliveAt` finding the deadline passed): it ends as `lost`.
   */
  outOfTime(gen: Generation): void {
    this.declareLost(gen, noReplyReason(gen.sessionId, gen.cm.sessionTimeout));
  }

  /** `close()`'s end of the current generation (see `closeGeneration`); no generation follows. */
  close(): Promise<void> {
    this.watchdog.stop();
    return closeGeneration(this.current, new SessionClosedError('ZkSession was closed'), closedCallError);
  }

  /** Whether a report of `gen` still counts: it is the current generation and `close()` has not begun. */
  private counts(gen: Generation): boolean {
    return !gen.retired && gen === this.current && !this.host.closing();
  }

  /** The wire client's connection state, as the session's: its transitions. */
  private onWireState(gen: Generation, s: number): void {
    if (!this.counts(gen)) return;
    if (s === CM_STATES.CONNECTED || s === CM_STATES.CONNECTED_READ_ONLY) {
      const first = !gen.established;
      gen.established = true;
      this.host.transition(first ? 'connected' : 'reconnected');
    } else if (s === CM_STATES.DISCONNECTED) {
      if (this.host.isConnected()) this.host.transition('suspended');
    } else if (s === CM_STATES.SESSION_EXPIRED) {
      this.declareLost(gen, expiredReason(gen.sessionId));
    } else if (s === CM_STATES.AUTHENTICATION_FAILED) {
      this.authFailed(gen, digestAuthFailed(this.options.auth));
    }
  }

  /**
   * The servers refused our SASL or digest credentials (or could not prove they know the SASL
   * password). While connect() waits, it rejects at once. Later (the servers' users changed): an
   * `error` event, and the session ends, since its holders can no longer act as themselves; the
   * next one is tried a session timeout later, not at once: every refused attempt leaves a
   * server session behind until it expires.
   */
  private authFailed(gen: Generation, err: AuthFailedError): void {
    if (!this.counts(gen)) return;
    if (this.failFast !== undefined) return this.failFast.authFailed(err);
    this.host.error(err);
    const reason = new SessionLostError(`ZooKeeper session ended: ${err.message}`, { cause: err });
    const delayMs = this.options.sessionTimeoutMs;
    if (gen.established) return this.declareLost(gen, reason, delayMs);
    // Not established: already reported lost (its predecessor's end); try again later, quietly.
    retireGeneration(gen, reason, lostCallError(reason));
    this.current = openGeneration(gen.n + 1, this.options, this.listener, delayMs);
  }

  /** Ends the current generation as `lost` and opens the next one. */
  private declareLost(gen: Generation, reason: SessionLostError, connectDelayMs = 0): void {
    if (!this.counts(gen)) return;
    retireGeneration(gen, reason, lostCallError(reason));
    this.host.transition('lost', reason);
    this.current = openGeneration(gen.n + 1, this.options, this.listener, connectDelayMs);
  }
}
