/**
 * The worker side of the nemesis: a process that loops acquire → hold briefly → release on one
 * lock with its own session, until the nemesis writes `stop` on its stdin, and prints what the
 * checker needs as JSON lines (times on CLOCK_MONOTONIC, `process.hrtime.bigint()`):
 *
 * - `session`: a (new) ZooKeeper session is up; its id and password (for `expireSession`);
 * - `acquiring`: `acquire()` is called (a wait starts; for the liveness report), with its deadline;
 * - `granted`: the start of a hold (the handle's `grantedAt`, else when `acquire()` resolved), with
 *   the node and the session;
 * - `section`: the hold's end = the earlier of the handle's `signal` aborting and the call to
 *   `release()` (printed before the release is awaited);
 * - a downgrade (a write lock's handle with `downgrade`): the write hold's `section`, then a
 *   `granted` with `downgrade: true` and the next id for the read hold, from the write hold's end
 *   (no `acquiring`: the read lock is granted at once), or `downgrade-failed` (the write hold's id,
 *   the error code);
 * - `release-failed`: `release()` rejected;
 * - `acquire-failed`: `acquire()` rejected (its error code);
 * - `gave-up`: the worker aborted its own acquisition (see `giveUp`);
 * - `stopped`: the acquisition pending when `stop` came was aborted by it and settled;
 * - `state`: the session's connection state changed (for reports);
 * - `done`: stopped cleanly.
 *
 * Every line that ends an acquisition (`granted`, `acquire-failed`, `gave-up`, `stopped`) carries
 * its timing for the deadline check: `calledAt`, `deadlineAt` (call + `timeoutMs`), `abortedAt`
 * when its signal was aborted, and `settledAt` (when `acquire()` resolved or rejected).
 *
 * Lines it reads: `calm` (faults are over: no more long holds) and `stop`.
 *
 * A worker script is a few lines: connect a `ZkSession`, build the recipe, call
 * {@link runNemesisWorker} with an `acquire` that returns the recipe's handle.
 */
import { createInterface } from 'node:readline';
import type { ZkSession } from '@zk-recipes/core';
import { sessionInternals } from '@zk-recipes/core/internal';
import { Prng } from './prng.js';
import { report, workerName } from '../workerSide.js';

/** What the loop needs of a recipe's handle (a mutex's LockHandle, a semaphore's Lease...). */
export interface NemesisHandle {
  /** The lock node the holder holds by (the checker matches the operator's deletes against it). */
  readonly path: string;
  /** A read lock's handle: may be held beside other shared holds. */
  readonly shared?: boolean;
  /** Aborts when the holder loses the lock: the hold ends there at the latest. */
  readonly signal: AbortSignal;
  /**
   * When the library granted it, on `performance.now()` (the handles' `grantedAt`): the hold's
   * start. Without it, the moment `acquire()` resolved is taken, which a SIGSTOP landing between
   * the grant and the worker's next line would misplace after the stop.
   */
  readonly grantedAt?: number;
  /** Gives the lock up; the hold ends when it is called. */
  release(): Promise<void>;
  /**
   * A write lock's handle whose holder downgrades: takes the read lock at the write lock's place.
   * The loop calls it once the write hold is over, before releasing this handle, then holds the
   * read lock (a shared hold, reported from the write hold's end) and releases it in turn.
   */
  downgrade?(): Promise<NemesisHandle>;
}

/** Options of {@link runNemesisWorker}. */
export interface NemesisWorkerOptions {
  /** The worker's connected session (its id and password are reported for forced expiries). */
  session: ZkSession;
  /**
   * One acquisition with this deadline; must give up when `signal` aborts (the nemesis stops the
   * worker, a waiter gives up).
   */
  acquire: (signal: AbortSignal, timeoutMs: number) => Promise<NemesisHandle>;
  /**
   * The deadline of an ordinary acquisition, ms (default five session timeouts: a waiter stuck
   * behind a node nobody will delete must not hang the run).
   */
  timeoutMs?: number;
  /**
   * Short deadlines: this share of acquisitions (default 0.3) gets a `timeoutMs` drawn in [min, max]
   * ms (default [300, 2000]) instead, so that deadlines fall while faults act (a stalled server, a
   * partition). The environment's `ZKR_NEMESIS_SHORT_DEADLINES` (a share) overrides the chance.
   */
  shortDeadlines?: {
    /** Share of acquisitions, in [0, 1]. */
    chance: number;
    /** Their deadline's range, [min, max] ms. */
    timeoutMs: readonly [number, number];
  };
  /** Hold each grant for a random time in [min, max] ms (default [5, 40]). */
  holdMs?: readonly [number, number];
  /**
   * This share of grants (default 0.03) is held for [min, max] times the session timeout instead
   * (default [0.5, 2]): a holder must still hold when a fault that outlasts its session strikes.
   * The environment's `ZKR_NEMESIS_LONG_HOLDS` (a share) overrides the default chance.
   */
  longHold?: {
    /** Share of grants, in [0, 1]. */
    chance: number;
    /** Their hold's range, [min, max] session timeouts. */
    sessions: readonly [number, number];
  };
  /** Seed of the hold times and give-ups (default: from the worker's name). */
  seed?: number;
  /**
   * Waiters that give up: this share of acquisitions (default 0.25) is aborted after a random
   * [min, max] ms (default [5, 200]) unless granted by then — the paths where a waiter leaves the
   * queue (and its successor must not take the lock early) get their share of faults too.
   */
  giveUp?: {
    /** Share of acquisitions, in [0, 1]. */
    chance: number;
    /** When they are aborted, [min, max] ms after the call. */
    afterMs: readonly [number, number];
  };
  /**
   * Arm `exists` watches on `CHATTER_NODES` nodes `<chatterPath>/<worker>-<i>` (default: none),
   * re-arming each after it fires. The nemesis creates and deletes them during a one-way partition
   * (requests held), so that watch events keep flowing to a client the server no longer hears — as
   * they do to a session that also waits on other, busy locks.
   */
  chatterPath?: string;
}

/** Watches each worker arms for the nemesis's chatter. */
export const CHATTER_NODES = 64;

/** Line sent by the nemesis to stop a worker. */
export const STOP_LINE = 'stop';
/** Line sent by the nemesis when the faults are over: no more long holds, and a long one in progress ends. */
export const CALM_LINE = 'calm';

const now = (): bigint => process.hrtime.bigint();

/**
 * `performance.now()` (ms since this process's time origin) on the `process.hrtime.bigint()` clock:
 * both count CLOCK_MONOTONIC, so one offset converts every reading. Taken as the closest of a few
 * samples (a sample straddling a preemption would be off).
 */
function monotonicFromPerformance(): (ms: number) => bigint {
  let best: { offset: bigint; spread: bigint } | undefined;
  for (let i = 0; i < 5; i++) {
    const before = now();
    const ms = performance.now();
    const after = now();
    const spread = after - before;
    const offset = (before + after) / 2n - BigInt(Math.round(ms * 1e6));
    if (best === undefined || spread < best.spread) best = { offset, spread };
  }
  const offset = best!.offset;
  return (ms) => offset + BigInt(Math.round(ms * 1e6));
}

function errorCode(err: unknown): string {
  if (typeof err === 'object' && err !== null) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const name = (err as { name?: unknown }).name;
    if (typeof name === 'string') return name;
  }
  return 'UNKNOWN';
}

/** Resolves after `ms`, or early when `signal` aborts. */
function hold(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** When a handle's signal aborted, followed from the moment it was obtained (see {@link abortsOf}). */
interface AbortTimes {
  /** Stops following; when the signal aborted, if it has. */
  stop(): bigint | undefined;
}

/** Follows `handle`'s signal from now: aborted already, it counts as aborted at `since`. */
function abortsOf(handle: NemesisHandle, since: bigint): AbortTimes {
  let abortedAt: bigint | undefined = handle.signal.aborted ? since : undefined;
  const onAbort = (): void => {
    abortedAt ??= now();
  };
  handle.signal.addEventListener('abort', onAbort, { once: true });
  return {
    stop: () => {
      handle.signal.removeEventListener('abort', onAbort);
      return abortedAt;
    },
  };
}

/** Runs the loop until `stop` arrives on stdin, then closes the session and prints `done`. */
export async function runNemesisWorker(options: NemesisWorkerOptions): Promise<void> {
  const worker = workerName();
  const session = options.session;
  const [holdMin, holdMax] = options.holdMs ?? [5, 40];
  const giveUp = options.giveUp ?? { chance: 0.25, afterMs: [5, 200] as const };
  const longHoldEnv = Number(process.env['ZKR_NEMESIS_LONG_HOLDS'] ?? Number.NaN);
  const longHold = options.longHold ?? { chance: longHoldEnv >= 0 && longHoldEnv <= 1 ? longHoldEnv : 0.03, sessions: [0.5, 2] as const };
  const shortEnv = Number(process.env['ZKR_NEMESIS_SHORT_DEADLINES'] ?? Number.NaN);
  const shortDeadlines = options.shortDeadlines ?? { chance: shortEnv >= 0 && shortEnv <= 1 ? shortEnv : 0.3, timeoutMs: [300, 2000] as const };
  const prng = new Prng(options.seed ?? [...worker].reduce((h, c) => (h * 31 + c.charCodeAt(0)) | 0, 7));
  const toMonotonic = monotonicFromPerformance();
  const stop = new AbortController();
  let stoppedAt: bigint | undefined;
  const stopNow = (): void => {
    stoppedAt ??= now();
    stop.abort();
  };
  const calm = new AbortController();
  const rl = createInterface({ input: process.stdin });
  rl.on('line', (text) => {
    if (text.trim() === STOP_LINE) stopNow();
    if (text.trim() === CALM_LINE) calm.abort();
  });
  rl.on('close', stopNow);

  const internals = sessionInternals(session);
  const reportSession = (): void => {
    const { sessionId, password } = internals.credentials;
    report({ type: 'session', worker, t: now(), session: sessionId.toString('hex'), password: password.toString('hex') });
  };
  reportSession();
  session.on('connected', reportSession);
  // For the reports: what the session went through around an overlap.
  const reportState = (state: string): void => report({ type: 'state', worker, t: now(), state, session: session.sessionId });
  session.on('state', reportState);

  const chatterPath = options.chatterPath;
  let rearm = (): void => undefined;
  if (chatterPath !== undefined) {
    // One watch per node per ZooKeeper session: re-armed after it fires, and for each new session.
    const armedIn = new Array<number>(CHATTER_NODES).fill(-1);
    const arm = (i: number): void => {
      const generation = session.generation;
      if (armedIn[i] === generation) return;
      armedIn[i] = generation;
      const forget = (): void => {
        if (armedIn[i] === generation) armedIn[i] = -1;
      };
      // Best effort: a request lost to a fault leaves that one watch unarmed until the next session.
      session
        .exists(`${chatterPath}/${worker}-${i}`, () => {
          forget();
          arm(i);
        })
        .catch(forget);
    };
    rearm = () => {
      for (let i = 0; i < CHATTER_NODES; i++) arm(i);
    };
    rearm();
  }
  session.on('connected', rearm);

  let sections = 0;
  let downgrades = 0;
  /** Holds `handle` for a drawn time: mostly short, a share of them long (until the faults are over). */
  const holdForDrawnTime = async (handle: NemesisHandle): Promise<void> => {
    const timeout = session.negotiatedSessionTimeoutMs;
    const isLong = prng.chance(longHold.chance) && !calm.signal.aborted;
    const holdFor = isLong
      ? prng.int(Math.round(timeout * longHold.sessions[0]), Math.round(timeout * longHold.sessions[1]))
      : prng.int(holdMin, holdMax);
    await hold(holdFor, isLong ? AbortSignal.any([handle.signal, calm.signal]) : handle.signal);
  };
  /** Ends the hold of `handle` (acquisition `id`, granted at `granted`): reports its section, then releases. Returns the hold's end. */
  const letGo = async (handle: NemesisHandle, id: number, granted: bigint, aborts: AbortTimes): Promise<bigint> => {
    const releasing = now();
    const abortedAt = aborts.stop();
    const end = abortedAt !== undefined && abortedAt < releasing ? abortedAt : releasing;
    sections++;
    // Reported before release() is awaited: the hold ends when we let go, and a release that
    // waits for a connection (or a process killed meanwhile) must not stretch it.
    report({
      type: 'section',
      worker,
      id,
      start: granted,
      end,
      path: handle.path,
      ...(abortedAt !== undefined ? { abortedAt, reason: errorCode(handle.signal.reason) } : {}),
    });
    try {
      await handle.release();
    } catch (err) {
      report({ type: 'release-failed', worker, id, t: now(), code: errorCode(err) });
    }
    return end;
  };
  for (let id = 0; !stop.signal.aborted; id++) {
    let handle: NemesisHandle;
    const attempt = new AbortController();
    let gaveUpAt: bigint | undefined;
    const giveUpTimer = prng.chance(giveUp.chance)
      ? setTimeout(() => {
          gaveUpAt = now();
          attempt.abort();
        }, prng.int(giveUp.afterMs[0], giveUp.afterMs[1]))
      : undefined;
    const timeoutMs = prng.chance(shortDeadlines.chance)
      ? prng.int(shortDeadlines.timeoutMs[0], shortDeadlines.timeoutMs[1])
      : (options.timeoutMs ?? session.negotiatedSessionTimeoutMs * 5);
    const calledAt = now();
    const deadlineAt = calledAt + BigInt(timeoutMs) * 1_000_000n;
    report({ type: 'acquiring', worker, id, t: calledAt, deadlineAt });
    /** The acquisition's timing, on every line that ends it: its first abort (giving up, or the stop) if any. */
    const timing = (settledAt: bigint) => {
      const stopAt = stop.signal.aborted ? stoppedAt : undefined;
      const abortedAt = gaveUpAt === undefined ? stopAt : stopAt === undefined || gaveUpAt < stopAt ? gaveUpAt : stopAt;
      return { calledAt, deadlineAt, settledAt, ...(abortedAt !== undefined ? { abortedAt } : {}) };
    };
    try {
      handle = await options.acquire(giveUpTimer ? AbortSignal.any([stop.signal, attempt.signal]) : stop.signal, timeoutMs);
    } catch (err) {
      const settledAt = now();
      if (stop.signal.aborted) {
        report({ type: 'stopped', worker, id, t: settledAt, code: errorCode(err), ...timing(settledAt) });
        break;
      }
      if (attempt.signal.aborted) {
        report({ type: 'gave-up', worker, id, t: settledAt, code: errorCode(err), ...timing(settledAt) });
        continue;
      }
      report({ type: 'acquire-failed', worker, id, t: settledAt, code: errorCode(err), ...timing(settledAt) });
      // The session may be down for a while: do not spin.
      await hold(20, stop.signal);
      continue;
    } finally {
      clearTimeout(giveUpTimer);
    }
    const settledAt = now();
    const granted = handle.grantedAt !== undefined ? toMonotonic(handle.grantedAt) : settledAt;
    const aborts = abortsOf(handle, granted);
    report({
      type: 'granted',
      worker,
      id,
      t: granted,
      path: handle.path,
      session: session.sessionId,
      ...(handle.shared === true ? { shared: true } : {}),
      ...timing(settledAt),
    });
    await holdForDrawnTime(handle);
    // A writer that downgrades takes the read lock while it still holds the write lock, then lets
    // the write lock go and holds the read lock as a hold of its own (see `NemesisHandle.downgrade`).
    let downgraded: { handle: NemesisHandle; aborts: AbortTimes } | undefined;
    if (handle.downgrade !== undefined && !handle.signal.aborted && !stop.signal.aborted) {
      try {
        const read = await handle.downgrade();
        downgraded = { handle: read, aborts: abortsOf(read, now()) };
      } catch (err) {
        report({ type: 'downgrade-failed', worker, id, t: now(), code: errorCode(err) });
      }
    }
    const end = await letGo(handle, id, granted, aborts);
    if (downgraded === undefined) continue;
    id++;
    // Held alone from the write hold's end: the checker sees an exclusive hold, then a shared one.
    const read = downgraded.handle;
    const readGranted = read.grantedAt !== undefined && toMonotonic(read.grantedAt) > end ? toMonotonic(read.grantedAt) : end;
    downgrades++;
    report({ type: 'granted', worker, id, t: readGranted, path: read.path, session: session.sessionId, shared: true, downgrade: true });
    await holdForDrawnTime(read);
    await letGo(read, id, readGranted, downgraded.aborts);
  }
  rl.close();
  session.off('connected', reportSession);
  session.off('connected', rearm);
  session.off('state', reportState);
  // close() settles every pending call; a partition cannot hold it for long, but do not wait forever.
  await Promise.race([session.close(), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
  report({ type: 'done', worker, sections, downgrades });
}
