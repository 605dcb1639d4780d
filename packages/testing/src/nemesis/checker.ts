/**
 * The nemesis's checker (pure): given every process's holds and the faults the nemesis injected,
 * find any moment at which more holders than allowed held the lock.
 *
 * A hold is [granted, end]: `granted` when the process's `acquire()` resolved, `end` the earlier of
 * its handle's `signal` aborting and its call to `release()`; a process killed while holding ends
 * its hold when it died. All times are CLOCK_MONOTONIC nanoseconds (`process.hrtime.bigint()`),
 * one clock shared by every process on the machine, so holds of different processes compare
 * directly and a clock step (NTP) cannot fake or hide an overlap.
 *
 * Some faults take the lock away from a holder that cannot be told first. Those, and only those,
 * end the victim's hold at the fault's start (its *allowance*):
 * - an operator deleting the node a process holds by (it was granted before the delete's answer
 *   came back, so the node was the holder's when it went);
 * - a forced expiry (`expireSession`) of the session a process holds by (granted before the
 *   expiry completed);
 * - a SIGSTOP pause longer than the session timeout of a process that held when it was stopped (a
 *   stopped process cannot be told; fencing tokens protect the resource there).
 * A process reads the server's events late (a busy machine: tens of ms): it may be granted on an
 * event that came before its node's deletion (or its session's expiry) and learn of that one a
 * moment later. So a grant after the delete (or expiry) still gets the allowance when the process
 * was told (its signal aborted) and it was already entitled to the lock when the fault started: no
 * conflicting hold was open then (after the first rule's cuts). A process killed within the
 * library's lost margin (a tenth of the session timeout, at least 100 ms) of such a grant may have
 * died before it could print that it was told: it counts as told. A waiter whose node goes while
 * another process holds, and who is granted later anyway, gets none.
 * Every other fault gets no allowance: partitions of either direction and any length, deletes of
 * waiters' nodes or the whole directory (the holder's own node in it still counts as above),
 * foreign writes, kills, leader failures, short pauses. A process granted *after* its node was
 * deleted or its session expired gets no allowance either: that grant is the bug.
 */
import { findOverlaps } from '../criticalSections.js';

/** One acquisition as the process recorded it. */
export interface Hold {
  /** Process name (a replacement process has a name of its own). */
  worker: string;
  /** Per-process acquisition number. */
  id: number;
  /** The lock node the handle names. */
  path: string;
  /** Session id (hex) current when `acquire()` resolved. */
  session: string;
  /** When the process was granted the lock (the hold's start). */
  granted: bigint;
  /** Earlier of signal-aborted and release; `null` when the process died (or hung) while holding. */
  end: bigint | null;
  /** A read lock: shared holds may overlap each other, never an exclusive one. */
  shared?: boolean;
  /** When the handle's signal aborted during the hold (the holder was told it lost the lock). */
  abortedAt?: bigint;
  /** Free text for reports (e.g. why the handle's signal aborted); the checker ignores it. */
  note?: string;
}

/** An operator's delete of one node: sent at `start`, answered at `done`. */
export interface NodeDeleteFault {
  /** The node deleted. */
  path: string;
  /** When the delete was sent. */
  start: bigint;
  /** When its answer came back. */
  done: bigint;
}

/** A forced expiry of one session. */
export interface ExpiryFault {
  /** Session id, hex. */
  session: string;
  /** When the expiry was started. */
  start: bigint;
  /** When it completed (`expireSession` resolved). */
  done: bigint;
}

/** A SIGSTOP (at `start`) and its SIGCONT (at `end`). */
export interface PauseFault {
  /** The process stopped. */
  worker: string;
  /** When it was sent SIGSTOP. */
  start: bigint;
  /** When it was sent SIGCONT. */
  end: bigint;
}

/** What {@link checkHolds} checks: every process's holds and the faults that may excuse them. */
export interface CheckInput {
  /** Every acquisition of every process. */
  holds: readonly Hold[];
  /** When each process that died was seen dead (ends its open hold). */
  deaths?: Readonly<Record<string, bigint>>;
  /** End of the run: a hold still open then (a process that hung) ends here. */
  runEnd: bigint;
  /** The operator's deletes of single nodes (default none). */
  deletes?: readonly NodeDeleteFault[];
  /** Forced session expiries (default none). */
  expiries?: readonly ExpiryFault[];
  /** SIGSTOP pauses of processes (default none). */
  pauses?: readonly PauseFault[];
  /** Pauses longer than this take the lock away. */
  sessionTimeoutMs: number;
  /** Holders allowed at once: 1 for a mutex, k for a semaphore of k leases. */
  maxConcurrent?: number;
}

/** Why a hold ended early in the checker's eyes. */
export type Allowance = 'node-deleted' | 'session-expired' | 'paused-past-session';

/** A hold with the end the checker used. */
export interface CheckedHold extends Hold {
  /** The end compared: the recorded one, the death, the run's end, or the allowance's cut. */
  effectiveEnd: bigint;
  /** Set when a fault's allowance cut the hold short. */
  cutBy?: Allowance;
  /** Set when the hold never ended by itself (process died or hung). */
  endedBy?: 'death' | 'run-end';
}

/** The verdict of {@link checkHolds}. */
export interface CheckResult {
  /** Every hold, with its effective end (empty holds included). */
  holds: CheckedHold[];
  /** Periods with more than `maxConcurrent` holders: each one is a safety bug. */
  overlaps: HoldOverlap[];
}

/** A period during which too many processes held the lock. */
export interface HoldOverlap {
  /** When one holder too many was first granted. */
  start: bigint;
  /** When the count fell back to the limit. */
  end: bigint;
  /** Most holders at once. */
  concurrent: number;
  /** Every hold open at some point of the period. */
  holds: CheckedHold[];
}

const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);
const NS_PER_MS = 1_000_000n;

/** Applies the end rules and the allowances, then looks for overlaps. */
export function checkHolds(input: CheckInput): CheckResult {
  const timeoutNs = BigInt(Math.round(input.sessionTimeoutMs)) * NS_PER_MS;
  const longPauses = (input.pauses ?? []).filter((p) => p.end - p.start > timeoutNs);
  /** A hold's effective end under the allowances; `toldLate` decides for grants after the fault completed. */
  const applyAllowances = (hold: Hold, recordedEnd: bigint, toldLate: (faultStart: bigint) => boolean): CheckedHold => {
    let effectiveEnd = recordedEnd;
    const endedBy: CheckedHold['endedBy'] = hold.end !== null ? undefined : input.deaths?.[hold.worker] !== undefined ? 'death' : 'run-end';
    let cutBy: Allowance | undefined;
    const cut = (at: bigint, why: Allowance): void => {
      const to = max(hold.granted, at);
      if (to < effectiveEnd) {
        effectiveEnd = to;
        cutBy = why;
      }
    };
    for (const d of input.deletes ?? []) {
      if (d.path === hold.path && (hold.granted <= d.done || toldLate(d.start))) cut(d.start, 'node-deleted');
    }
    for (const e of input.expiries ?? []) {
      if (e.session === hold.session && (hold.granted <= e.done || toldLate(e.start))) cut(e.start, 'session-expired');
    }
    for (const p of longPauses) {
      // A stopped process records nothing: granted before SIGCONT means granted before the stop.
      if (p.worker === hold.worker && hold.granted <= p.end) cut(p.start, 'paused-past-session');
    }
    return { ...hold, effectiveEnd, ...(cutBy ? { cutBy } : {}), ...(endedBy ? { endedBy } : {}) };
  };
  const maxConcurrent = input.maxConcurrent ?? 1;
  const readWrite = input.holds.some((h) => h.shared === true);
  const rawEnd = (hold: Hold): bigint => {
    if (hold.end !== null) return hold.end;
    return max(hold.granted, input.deaths?.[hold.worker] ?? input.runEnd);
  };
  // Pass 1: the recorded ends and the allowances for holds granted before the fault completed.
  const firstPass = input.holds.map((hold) => applyAllowances(hold, rawEnd(hold), () => false));
  // Pass 2: holders told late, who were entitled to the lock when the fault started.
  const entitledAt = (hold: Hold, at: bigint): boolean => {
    const conflicting = firstPass.filter(
      (other) => other.worker !== hold.worker && other.granted <= at && other.effectiveEnd > at && !(readWrite && hold.shared === true && other.shared === true),
    );
    return readWrite ? conflicting.length === 0 : conflicting.length < maxConcurrent;
  };
  // A process killed right after such a grant may not have printed that it was told: one that died
  // within the library's own allowance for reading late (the lost margin) counts as told.
  const lateNs = BigInt(Math.max(Math.round(input.sessionTimeoutMs / 10), 100)) * NS_PER_MS;
  const diedUntold = (hold: Hold): boolean => {
    const death = input.deaths?.[hold.worker];
    return hold.end === null && death !== undefined && death - hold.granted <= lateNs;
  };
  const checked = input.holds.map((hold) =>
    applyAllowances(hold, rawEnd(hold), (faultStart) => (hold.abortedAt !== undefined || diedUntold(hold)) && entitledAt(hold, faultStart)),
  );
  // An empty hold (cut at its grant) held nothing.
  const timed = checked.filter((h) => h.effectiveEnd > h.granted).map((hold) => ({ start: hold.granted, end: hold.effectiveEnd, hold }));
  const overlaps = readWrite
    ? readWriteOverlaps(timed)
    : findOverlaps(timed, { maxConcurrent }).map(
        (o): HoldOverlap => ({ start: o.start, end: o.end, concurrent: o.concurrent, holds: o.intervals.map((t) => t.hold) }),
      );
  return { holds: checked, overlaps };
}

/** Periods where an exclusive hold was open together with any other hold (read/write lock). */
function readWriteOverlaps(timed: ReadonlyArray<{ start: bigint; end: bigint; hold: CheckedHold }>): HoldOverlap[] {
  const edges = timed.flatMap((t) => [
    { at: t.start, delta: 1 as const, t },
    { at: t.end, delta: -1 as const, t },
  ]);
  // At equal times ends come first: touching is not overlapping.
  edges.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.delta - b.delta));
  const open = new Set<CheckedHold>();
  let exclusive = 0;
  let current: HoldOverlap | null = null;
  const out: HoldOverlap[] = [];
  const bad = (): boolean => exclusive > 0 && open.size > 1;
  for (const e of edges) {
    const hold = e.t.hold;
    if (e.delta === 1) {
      open.add(hold);
      if (hold.shared !== true) exclusive++;
      if (bad()) {
        current ??= { start: e.at, end: e.at, concurrent: 0, holds: [...open] };
        for (const h of open) if (!current.holds.includes(h)) current.holds.push(h);
        current.concurrent = Math.max(current.concurrent, open.size);
      }
    } else {
      open.delete(hold);
      if (hold.shared !== true) exclusive--;
      if (current !== null && !bad()) {
        current.end = e.at;
        out.push(current);
        current = null;
      }
    }
  }
  return out;
}
