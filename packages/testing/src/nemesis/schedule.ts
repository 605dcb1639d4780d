/**
 * The nemesis's fault schedule, a pure function of a seed: the same seed, duration and options
 * give the same list of faults (kinds, start times, durations, targets by role, variants). Which
 * process is "the holder" when a step runs depends on the run's timing, so a replay repeats the
 * schedule exactly and the interleaving approximately.
 */
import { Prng } from './prng.js';

/** Every fault the nemesis knows. */
export const FAULT_KINDS = [
  /** SIGKILL a process (a replacement starts at once). */
  'kill',
  /** SIGSTOP a process for at most a quarter of the session timeout, then SIGCONT. */
  'pause-short',
  /** SIGSTOP a process for 1.5-2x the session timeout (its session expires meanwhile). */
  'pause-long',
  /** Hold a process's traffic both ways (`FaultProxy.blackhole`). */
  'partition',
  /** Hold only what the process sends (`FaultProxy.holdRequests`): the server hears nothing. */
  'partition-requests',
  /** Hold only what the servers send it (`FaultProxy.holdReplies`). */
  'partition-replies',
  /** Expire a process's session on the server (`expireSession`). */
  'expire',
  /**
   * Swallow the next create a process sends, and its connection with it
   * (`FaultProxy.dropNextRequest`): the server never sees it, the client recovers it by its GUID,
   * creates again and sweeps for the lost one later. Armed for 1-3 s; skipped if no create came.
   */
  'drop-create',
  /** The operator deletes the first node of the queue (the holder's). */
  'delete-holder',
  /** The operator deletes a node behind the first (a waiter's). */
  'delete-waiter',
  /** The operator deletes the whole lock directory (`deleteall`) in some order. */
  'delete-all',
  /** The operator writes foreign data to the first node. */
  'write-holder',
  /** The operator writes foreign data to a waiter's node. */
  'write-waiter',
  /** Kill the ensemble's leader until another is elected, then restart it. */
  'leader-kill',
  /** Pause the ensemble's leader until another is elected, then resume it. */
  'leader-pause',
  /**
   * SIGSTOP one server of the ensemble for 0.5-2x the session timeout, then SIGCONT: connections
   * stay open and nothing answers. Which server: the one the target process is connected to, the
   * leader, or any member (`server`).
   */
  'server-stall',
] as const;
/** One of {@link FAULT_KINDS}. */
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Faults that need a 3-server ensemble. */
export const ENSEMBLE_FAULTS: readonly FaultKind[] = ['leader-kill', 'leader-pause', 'server-stall'];

/** One step of the schedule. */
export interface FaultStep {
  /** Position in the schedule, from 0. */
  index: number;
  /** What the step does. */
  kind: FaultKind;
  /** Earliest start, ms after the run's start (a step never starts before the previous one ended). */
  atMs: number;
  /** How long a pause or partition lasts, or a `drop-create` stays armed (0 for instant faults). */
  durationMs: number;
  /** Process faults: aim at the current holder, or at any process. */
  target: 'holder' | 'any';
  /** A number in [0, 1) that picks among the candidates the run has when the step starts. */
  pick: number;
  /** Writes: `__REVOKE__` or random bytes. */
  write?: 'revoke' | 'bytes';
  /**
   * `server-stall`: which server — the one the target process is connected to (`client`; any
   * member when it is between connections), the leader, or any member.
   */
  server?: 'client' | 'leader' | 'random';
  /** `delete-all`: the order. */
  order?: 'youngest-first' | 'oldest-first' | 'random';
  /** Seed for the step's own randomness (the random order, the random bytes). */
  seed: number;
}

/** Options of {@link makeSchedule}. */
export interface ScheduleOptions {
  /** Seed of the schedule: the same seed and options give the same steps. */
  seed: number;
  /** Faults start within this many ms of the run's start. */
  durationMs: number;
  /** The workers' session timeout (sets pause and partition lengths). */
  sessionTimeoutMs: number;
  /** Which faults to draw from (default: all). */
  kinds?: readonly FaultKind[];
  /** Calm gap before the first fault, ms (default 1000). */
  warmupMs?: number;
  /** Calm gap after each fault, ms, drawn in [min, max] (default [200, 1200]). */
  gapMs?: readonly [number, number];
}

/** The seeded schedule. */
export function makeSchedule(options: ScheduleOptions): FaultStep[] {
  const kinds = options.kinds ?? FAULT_KINDS;
  if (kinds.length === 0) throw new RangeError('makeSchedule: no fault kinds');
  const prng = new Prng(options.seed);
  const t = options.sessionTimeoutMs;
  const [gapMin, gapMax] = options.gapMs ?? [200, 1200];
  const steps: FaultStep[] = [];
  let at = options.warmupMs ?? 1000;
  while (at < options.durationMs) {
    const kind = prng.pick(kinds);
    let durationMs = 0;
    if (kind === 'pause-short') durationMs = prng.int(50, Math.floor(t / 4));
    else if (kind === 'pause-long') durationMs = prng.int(Math.ceil(t * 1.5), t * 2);
    // Partitions: half shorter than the session (it survives), half longer (it expires).
    else if (kind.startsWith('partition')) durationMs = prng.chance(0.5) ? prng.int(100, Math.floor(t / 2)) : prng.int(t, Math.floor(t * 1.75));
    // Shorter than the read timeout (the client waits it out) to longer than the session (it must move).
    else if (kind === 'server-stall') durationMs = prng.int(Math.ceil(t / 2), t * 2);
    // How long the drop stays armed: a process creates a node per acquisition (tens of ms apart),
    // a long hold delays its next one.
    else if (kind === 'drop-create') durationMs = prng.int(1000, 3000);
    const step: FaultStep = {
      index: steps.length,
      kind,
      atMs: at,
      durationMs,
      target: prng.chance(0.6) ? 'holder' : 'any',
      pick: prng.next(),
      seed: prng.int(1, 2 ** 31 - 1),
    };
    if (kind === 'write-holder' || kind === 'write-waiter') step.write = prng.chance(0.5) ? 'revoke' : 'bytes';
    if (kind === 'server-stall') {
      const r = prng.next();
      step.server = r < 0.6 ? 'client' : r < 0.85 ? 'leader' : 'random';
    }
    if (kind === 'delete-all') step.order = prng.pick(['youngest-first', 'oldest-first', 'random'] as const);
    steps.push(step);
    at += durationMs + prng.int(gapMin, gapMax);
  }
  return steps;
}

/** How many steps of each kind (every kind listed, zeros included). */
export function countKinds(kinds: Iterable<FaultKind>): Record<FaultKind, number> {
  const counts = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;
  for (const k of kinds) counts[k]++;
  return counts;
}
