/*
 * Checking mutual exclusion from the outside: every worker (Node or Java, any process) records
 * when it entered and left its critical section on CLOCK_MONOTONIC (`process.hrtime.bigint()` in
 * Node, `System.nanoTime()` in Java on Linux: the same clock, so intervals from different
 * processes and languages compare directly). The helpers then look for moments when too many
 * sections were open at once.
 *
 * Two sections that merely touch (one ends at the very nanosecond the next starts) do not overlap.
 */

/** One critical section: who held it and when (CLOCK_MONOTONIC nanoseconds). */
export interface Interval {
  /** Who held it (a worker's name). */
  worker: string;
  /** When the section started (the worker held the lock from then on). */
  start: bigint;
  /** When it ended (never before `start`). */
  end: bigint;
}

/** What the overlap helpers need of a section. */
export type TimedSection = Pick<Interval, 'start' | 'end'>;

/** A maximal period during which more sections than allowed were open at once. */
export interface Overlap<T extends TimedSection> {
  /** When the limit was first exceeded. */
  start: bigint;
  /** When the count fell back to the limit. */
  end: bigint;
  /** Most sections open at once during the period. */
  concurrent: number;
  /** Every section open at some point of the period. */
  intervals: T[];
}

/** The end of one holder's section to the start of the next one's (in start order). */
export interface Handoff {
  /** The worker whose section ended. */
  from: string;
  /** The worker whose section started next. */
  to: string;
  /** `to.start - from.end` in nanoseconds; negative means the two overlapped. */
  gapNs: bigint;
}

interface Edge<T> {
  at: bigint;
  delta: 1 | -1;
  interval: T;
}

/** Start/end edges in time order; at equal times ends come first (touching is not overlapping). */
function edges<T extends TimedSection>(intervals: readonly T[]): Edge<T>[] {
  const out: Edge<T>[] = [];
  for (const interval of intervals) {
    if (interval.end < interval.start) {
      throw new RangeError(`interval ends (${interval.end}) before it starts (${interval.start})`);
    }
    out.push({ at: interval.start, delta: 1, interval }, { at: interval.end, delta: -1, interval });
  }
  return out.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.delta - b.delta));
}

/** Nanoseconds during which exactly `n` sections were open (e.g. all leases of a semaphore in use). */
export function timeAtConcurrency(intervals: readonly TimedSection[], n: number): bigint {
  let open = 0;
  let since = 0n;
  let total = 0n;
  for (const edge of edges(intervals)) {
    if (open === n) total += edge.at - since;
    open += edge.delta;
    since = edge.at;
  }
  return total;
}

/**
 * The periods during which more than `maxConcurrent` sections (default 1: a mutex) were open.
 * An empty array means the exclusion held.
 */
export function findOverlaps<T extends TimedSection>(intervals: readonly T[], options: { maxConcurrent?: number } = {}): Overlap<T>[] {
  const maxConcurrent = options.maxConcurrent ?? 1;
  if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1) throw new RangeError(`maxConcurrent must be a positive integer, got ${maxConcurrent}`);
  const open = new Set<T>();
  const overlaps: Overlap<T>[] = [];
  let current: Overlap<T> | null = null;
  for (const edge of edges(intervals)) {
    if (edge.delta === 1) {
      open.add(edge.interval);
      if (open.size > maxConcurrent) {
        current ??= { start: edge.at, end: edge.at, concurrent: 0, intervals: [...open] };
        if (!current.intervals.includes(edge.interval)) current.intervals.push(edge.interval);
        current.concurrent = Math.max(current.concurrent, open.size);
      }
    } else {
      open.delete(edge.interval);
      if (current !== null && open.size <= maxConcurrent) {
        current.end = edge.at;
        overlaps.push(current);
        current = null;
      }
    }
  }
  return overlaps;
}

/** The largest number of sections open at the same instant. */
export function maxConcurrency(intervals: readonly TimedSection[]): number {
  let open = 0;
  let max = 0;
  for (const edge of edges(intervals)) {
    open += edge.delta;
    max = Math.max(max, open);
  }
  return max;
}

/**
 * For sections sorted by start: the time from each section's end to the next one's start (how
 * long the lock sat free between holders). Hand-offs to the same worker are included; filter on
 * `from !== to` for cross-process hand-off latency.
 */
export function handoffGaps(intervals: readonly Interval[]): Handoff[] {
  const ordered = [...intervals].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const gaps: Handoff[] = [];
  for (let i = 1; i < ordered.length; i++) {
    const prev = ordered[i - 1]!;
    const next = ordered[i]!;
    gaps.push({ from: prev.worker, to: next.worker, gapNs: next.start - prev.end });
  }
  return gaps;
}

/** Runs `fn` as a critical section of `worker` and returns it with its measured interval. */
export async function timeSection<R>(
  worker: string,
  fn: () => Promise<R> | R,
): Promise<{
  /** What `fn` returned (awaited). */
  result: R;
  /** When `fn` ran: from just before the call to just after its result resolved. */
  interval: Interval;
}> {
  const start = process.hrtime.bigint();
  const result = await fn();
  const end = process.hrtime.bigint();
  return { result, interval: { worker, start, end } };
}

/** JSON has no bigint: intervals travel between processes as decimal strings. */
export interface IntervalJson {
  /** {@link Interval.worker}. */
  worker: string;
  /** {@link Interval.start}, decimal. */
  start: string;
  /** {@link Interval.end}, decimal. */
  end: string;
}

/** An interval as JSON-safe data (for a worker's stdout line). */
export function intervalToJson(interval: Interval): IntervalJson {
  return { worker: interval.worker, start: interval.start.toString(), end: interval.end.toString() };
}

/** Back from {@link intervalToJson} (also accepts numbers, e.g. from Java's long). */
export function intervalFromJson(json: { worker: string; start: string | number; end: string | number }): Interval {
  return { worker: json.worker, start: BigInt(json.start), end: BigInt(json.end) };
}

/**
 * The critical sections among workers' JSON lines: every `{"type":"section", worker, start, end}`
 * line (Node workers and the Java peer print the same shape), as an interval.
 */
export function sectionIntervals(lines: readonly unknown[]): Interval[] {
  return lines.filter(isSectionLine).map((line) => intervalFromJson(line));
}

function isSectionLine(line: unknown): line is IntervalJson {
  return typeof line === 'object' && line !== null && (line as { type?: unknown }).type === 'section';
}
