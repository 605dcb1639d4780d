/**
 * The nemesis's deadline check (pure): every acquisition with a deadline (`timeoutMs`) or aborted
 * through its signal must settle — granted, or rejected — no later than that deadline or abort plus
 * the library's settle slack (`SETTLE_SLACK_MS`), whatever the servers do, and is never granted
 * after that (docs/testing.md, "Deadlines"). One that settles later, or never while its process
 * still ran, is a *miss*.
 *
 * Two things stretch the bound, and only these:
 * - a scheduling tolerance (`toleranceMs`): the library's timers and the worker's own reading of the
 *   settlement run on a loaded machine (3 server JVMs and 4 workers on 2 cores), so they fire late
 *   by tens of ms, now and then by a few hundred;
 * - the time the acquisition's own process was stopped (SIGSTOP) between its call and its bound: a
 *   stopped process runs no timer, so the library's deadline fires only after SIGCONT. The bound
 *   moves by the stopped time (a pause that starts after the bound moves nothing: the acquisition
 *   was late already). The library promises its slack to a process that runs.
 *
 * All times are CLOCK_MONOTONIC nanoseconds (`process.hrtime.bigint()`), as the holds'.
 */
import type { PauseFault } from './checker.js';

/** One acquisition as its process recorded it. */
export interface Acquisition {
  /** The process that made it. */
  worker: string;
  /** Per-process acquisition number. */
  id: number;
  /** When `acquire()` was called. */
  calledAt: bigint;
  /** `calledAt + timeoutMs`, when it had a deadline. */
  deadlineAt?: bigint;
  /** When its caller aborted its signal (a waiter giving up, the worker told to stop). */
  abortedAt?: bigint;
  /** When `acquire()` settled, as the worker saw it; `null` when it never did (the process died, or hung). */
  settledAt: bigint | null;
  /** Set when it was granted: the library's grant time (the handle's `grantedAt`). */
  grantedAt?: bigint;
  /** The rejection's code, when it was rejected. */
  code?: string;
}

/** What {@link checkDeadlines} checks: every acquisition, and what may excuse lateness. */
export interface DeadlineInput {
  /** Every acquisition of every process (those without a deadline or an abort are not checked). */
  acquisitions: readonly Acquisition[];
  /** The processes' SIGSTOP pauses. */
  pauses?: readonly PauseFault[];
  /** When each process that died was seen dead: an acquisition open then was never settled. */
  deaths?: Readonly<Record<string, bigint>>;
  /** The end of observation: an acquisition still open then (its process hung) was never settled. */
  runEnd: bigint;
  /** The library's slack past a deadline or an abort (`SETTLE_SLACK_MS`). */
  slackMs: number;
  /** Scheduling lateness tolerated beside the slack. */
  toleranceMs: number;
}

/** An acquisition that settled too late, or not at all. */
export interface DeadlineMiss {
  /** The acquisition that missed. */
  acquisition: Acquisition;
  /** What it was due by: the earlier of its deadline and its abort. */
  dueBy: 'deadline' | 'abort';
  /** That deadline or abort's time. */
  dueAt: bigint;
  /** The latest it could settle: due + slack + tolerance + the time its process was stopped. */
  boundAt: bigint;
  /** How it ended: granted late, rejected late, or still pending when its process died or the run ended. */
  outcome: 'granted' | 'rejected' | 'unsettled';
  /** How far past the due time it settled (or was last seen pending), not counting the time its process was stopped, ms. */
  latenessMs: number;
}

/** The verdict of {@link checkDeadlines}. */
export interface DeadlineCheck {
  /** Acquisitions with a deadline or an abort. */
  checked: number;
  /** Of those, how many had their bound moved by a pause of their process. */
  stretchedByPauses: number;
  /** Every miss, latest first. */
  misses: DeadlineMiss[];
  /** The largest lateness among all checked acquisitions (settled ones, and pending ones when seen last), ms; 0 with none late. */
  worstLatenessMs: number;
  /** The acquisition with that lateness. */
  worst?: Acquisition;
}

const toMs = (ns: bigint): number => Number(ns) / 1e6;
const minOf = (a: bigint, b: bigint): bigint => (a < b ? a : b);
const maxOf = (a: bigint, b: bigint): bigint => (a > b ? a : b);

/**
 * `until` pushed back by the time the process was stopped from `from` on (pauses sorted by start):
 * each pause that starts before the bound so far moves it by its stopped time, which may take in
 * the next pause.
 */
function boundAfterPauses(pauses: readonly PauseFault[], from: bigint, until: bigint): bigint {
  let bound = until;
  for (const p of pauses) {
    if (p.end <= from) continue;
    if (p.start >= bound) break;
    bound += p.end - maxOf(p.start, from);
  }
  return bound;
}

/** How long the process was stopped between `from` and `to`. */
function stoppedBetween(pauses: readonly PauseFault[], from: bigint, to: bigint): bigint {
  let stopped = 0n;
  for (const p of pauses) {
    const overlap = minOf(p.end, to) - maxOf(p.start, from);
    if (overlap > 0n) stopped += overlap;
  }
  return stopped;
}

/** Applies the rule above to every acquisition with a deadline or an abort. */
export function checkDeadlines(input: DeadlineInput): DeadlineCheck {
  const allowNs = BigInt(Math.round((input.slackMs + input.toleranceMs) * 1e6));
  const pausesOf = new Map<string, PauseFault[]>();
  for (const p of input.pauses ?? []) pausesOf.set(p.worker, [...(pausesOf.get(p.worker) ?? []), p]);
  for (const list of pausesOf.values()) list.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));

  const misses: DeadlineMiss[] = [];
  let checked = 0;
  let stretchedByPauses = 0;
  let worstLatenessMs = 0;
  let worst: Acquisition | undefined;
  for (const a of input.acquisitions) {
    const byAbort = a.abortedAt !== undefined && (a.deadlineAt === undefined || a.abortedAt < a.deadlineAt);
    const dueAt = byAbort ? a.abortedAt : a.deadlineAt;
    if (dueAt === undefined) continue;
    checked++;
    const pauses = pausesOf.get(a.worker) ?? [];
    const unstretched = dueAt + allowNs;
    const boundAt = boundAfterPauses(pauses, a.calledAt, unstretched);
    if (boundAt > unstretched) stretchedByPauses++;
    // Settled, or last seen pending: when its process died, else at the end of observation.
    const seen = a.settledAt ?? input.deaths?.[a.worker] ?? input.runEnd;
    // Lateness in the process's running time: its stops up to `seen` (at most those that moved the bound) come off.
    const stopped = minOf(boundAt - unstretched, stoppedBetween(pauses, a.calledAt, seen));
    const latenessMs = toMs(seen - dueAt - stopped);
    const missed = seen > boundAt || (a.grantedAt !== undefined && a.grantedAt > boundAt);
    if ((a.settledAt !== null || missed) && latenessMs > worstLatenessMs) {
      worstLatenessMs = latenessMs;
      worst = a;
    }
    if (missed) {
      misses.push({
        acquisition: a,
        dueBy: byAbort ? 'abort' : 'deadline',
        dueAt,
        boundAt,
        outcome: a.settledAt === null ? 'unsettled' : a.grantedAt !== undefined ? 'granted' : 'rejected',
        latenessMs,
      });
    }
  }
  misses.sort((x, y) => y.latenessMs - x.latenessMs);
  return { checked, stretchedByPauses, misses, worstLatenessMs, ...(worst ? { worst } : {}) };
}
