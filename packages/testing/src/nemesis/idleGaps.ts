/**
 * The nemesis's liveness check (pure): every stretch of time during which the lock (or a lease)
 * was free while some process waited for it. A lock-queue recipe hands a free lock to its next
 * waiter in a few round trips; a fault may stretch that (a holder killed or cut off keeps its node
 * until its session expires), but never without bound.
 *
 * Free: fewer holds open than allowed (the checker's effective ends: a hold that a fault took away
 * ends at the fault). Waiting: between a process's call to `acquire()` and its outcome (granted,
 * failed, given up) or its death. A gap ends when a hold starts or the last waiter stops waiting.
 */
import type { CheckedHold } from './checker.js';
import type { MachineLoad } from '../machineLoad.js';

/** One acquisition's wait, as the process recorded it. */
export interface Wait {
  /** The process that waited. */
  worker: string;
  /** Per-process acquisition number. */
  id: number;
  /** When `acquire()` was called (CLOCK_MONOTONIC ns). */
  start: bigint;
  /** When it was granted, failed, was given up, or the process died; `null`: still waiting at the run's end. */
  end: bigint | null;
}

/** A stretch during which the lock was free while someone waited. */
export interface IdleGap {
  /** When the lock was free with someone waiting (CLOCK_MONOTONIC ns). */
  start: bigint;
  /** When a hold started or the last waiter stopped waiting (CLOCK_MONOTONIC ns). */
  end: bigint;
  /** Processes that waited at some point of the gap. */
  waiters: string[];
}

/** What {@link findIdleGaps} sweeps. */
export interface IdleGapInput {
  /** Every hold with the end the safety checker used ({@link CheckResult.holds}). */
  holds: readonly CheckedHold[];
  /** Every acquisition's wait. */
  waits: readonly Wait[];
  /** Holders allowed at once (1 for a mutex). Shared (read) holds are not supported here. */
  maxConcurrent: number;
  /** The end of observation: a wait still open then ends here (CLOCK_MONOTONIC ns). */
  runEnd: bigint;
}

/** Every idle gap, longest first. */
export function findIdleGaps({ holds, waits, maxConcurrent, runEnd }: IdleGapInput): IdleGap[] {
  // Sweep the start and end points, deciding once per instant (a grant ends a wait and starts a
  // hold at the same nanosecond: no gap).
  type Point = { t: bigint; holders: number; waiting: number; worker?: string };
  const points: Point[] = [];
  for (const h of holds) {
    if (h.effectiveEnd <= h.granted) continue;
    points.push({ t: h.granted, holders: 1, waiting: 0 }, { t: h.effectiveEnd, holders: -1, waiting: 0 });
  }
  for (const w of waits) {
    const end = w.end ?? runEnd;
    if (end <= w.start) continue;
    points.push({ t: w.start, holders: 0, waiting: 1, worker: w.worker }, { t: end, holders: 0, waiting: -1, worker: w.worker });
  }
  points.sort((a, b) => (a.t < b.t ? -1 : a.t > b.t ? 1 : 0));
  const gaps: IdleGap[] = [];
  let holders = 0;
  const waiting = new Map<string, number>();
  let open: { start: bigint; waiters: Set<string> } | undefined;
  for (let i = 0; i < points.length; ) {
    const t = points[i]!.t;
    for (; i < points.length && points[i]!.t === t; i++) {
      const p = points[i]!;
      holders += p.holders;
      if (p.worker === undefined) continue;
      const n = (waiting.get(p.worker) ?? 0) + p.waiting;
      if (n > 0) waiting.set(p.worker, n);
      else waiting.delete(p.worker);
    }
    const idle = holders < maxConcurrent && waiting.size > 0;
    if (idle) {
      open ??= { start: t, waiters: new Set() };
      for (const worker of waiting.keys()) open.waiters.add(worker);
    } else if (open !== undefined) {
      if (t > open.start) gaps.push({ start: open.start, end: t, waiters: [...open.waiters] });
      open = undefined;
    }
  }
  if (open !== undefined && runEnd > open.start) gaps.push({ start: open.start, end: runEnd, waiters: [...open.waiters] });
  return gaps.sort((a, b) => (b.end - b.start > a.end - a.start ? 1 : b.end - b.start < a.end - a.start ? -1 : 0));
}

/** A fault as the liveness bound sees it: its kind and when it acted (CLOCK_MONOTONIC ns). */
export interface FaultSpan {
  /** The fault's kind ({@link FaultKind}). */
  kind: string;
  /** When it started acting. */
  start: bigint;
  /** When it was over. */
  end: bigint;
}

const NS_PER_MS = 1_000_000n;

/**
 * How long one fault may keep a free lock from its next waiter, in ms. A killed process keeps its
 * node until the server expires its session (the timeout, plus up to two ticks and the hand-off:
 * one second more); a paused or cut-off process (holder or next waiter) until the fault ends or
 * its session expires, whichever is first; a leader failure for as long as it lasts, plus a second
 * to elect and reconnect; a stalled server as a partition of everyone on it, plus a second for an
 * election (it may be the leader); an expiry frees its nodes at once (a second for the victim to enqueue
 * again), and a dropped create costs its process a reconnection (a second, the same). An operator's deletes and writes never hold a lock back: none.
 *
 * The fault's own length and the session timeout are what they are; the seconds for the work that
 * follows (an election, a reconnection, a hand-off) take longer on a busy machine: they are
 * multiplied by `slowness` (the machine's, {@link MachineLoad}; 1 on an idle machine).
 */
export function faultAllowanceMs(fault: FaultSpan, sessionTimeoutMs: number, slowness = 1): number {
  const durationMs = Number(fault.end - fault.start) / 1e6;
  const work = (ms: number): number => ms * slowness;
  switch (fault.kind) {
    case 'kill':
      return sessionTimeoutMs + work(1000);
    case 'pause-short':
    case 'pause-long':
    case 'partition':
    case 'partition-requests':
    case 'partition-replies':
      return Math.min(durationMs, sessionTimeoutMs) + work(1000);
    case 'leader-kill':
    case 'leader-pause':
      return durationMs + work(1000);
    // A stalled server answers nobody: a waiter (or a holder letting go) connected to it is stuck
    // until its client gives up on the server (the read timeout, 2/3 of the session) and reaches
    // another, or the stall ends (the server, cut off from its quorum meanwhile, drops its
    // connections), whichever is first — or its session expires, at most a session timeout in:
    // as a partition, the stall or the session timeout, and a second to reconnect and hand over.
    // When the stalled server is the leader, nothing commits until another is elected: one more
    // second, as a leader failure gets.
    case 'server-stall':
      return Math.min(durationMs, sessionTimeoutMs) + work(2000);
    case 'expire':
      return work(1000);
    // The process whose create was dropped waits while it reconnects, finds nothing by its GUID and
    // creates again: as an expiry's victim enqueueing again.
    case 'drop-create':
      return work(1000);
    default:
      return 0;
  }
}

/**
 * The longest a gap may last: `quietMs` (a hand-off, with room for a busy machine), plus the
 * allowance of every fault that acted during the gap or ended at most one session timeout before
 * it (a fault that ended earlier has stopped holding the lock back). Faults chain: a holder killed,
 * then the waiter who would be next paused, each costs its own. The hand-off and the faults'
 * work are multiplied by `slowness`, the machine's over the gap (1 on an idle machine).
 */
export function idleBoundMs(gap: IdleGap, faults: readonly FaultSpan[], sessionTimeoutMs: number, quietMs: number, slowness = 1): number {
  const reach = BigInt(sessionTimeoutMs) * NS_PER_MS;
  let bound = quietMs * slowness;
  for (const f of faults) if (f.start <= gap.end && f.end + reach >= gap.start) bound += faultAllowanceMs(f, sessionTimeoutMs, slowness);
  return bound;
}
