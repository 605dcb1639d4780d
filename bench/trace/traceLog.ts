/** The trace format of traceWorker.ts and the analyses of trace.ts. */

/** One step of one process: a request sent or answered, a watch event, a section's start or end. */
export interface TraceEntry {
  /** process.hrtime.bigint() as a decimal string. */
  t: string;
  what: 'call' | 'reply' | 'error' | 'event' | 'start' | 'end';
  /** The ZkSession method (call/reply/error) or the watch event type (event). */
  op?: string;
  /** The znode path the step is about (the section's node for start/end). */
  path: string;
  /** start/end: the contender's role (mutex, read, write, semaphore). */
  role?: string;
  /** error: the error code. */
  code?: string;
}

/** A step with its process and a numeric time. */
export interface Step extends TraceEntry {
  pid: number;
  ns: bigint;
}

/** All processes' steps, merged in time order. */
export function mergeTraces(traces: ReadonlyArray<{ pid: number; log: TraceEntry[] }>): Step[] {
  const steps = traces.flatMap(({ pid, log }) => log.map((entry) => ({ ...entry, pid, ns: BigInt(entry.t) })));
  return steps.sort((a, b) => (a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : 0));
}

/** Milliseconds between two steps. */
export function msBetween(from: Step, to: Step): number {
  return Number(to.ns - from.ns) / 1e6;
}

/** The last element matching `predicate` (lib ES2022 has no Array#findLast). */
function findLast<T>(items: readonly T[], predicate: (item: T, index: number) => boolean): T | undefined {
  const i = findLastIndex(items, predicate);
  return i < 0 ? undefined : items[i];
}

function findLastIndex<T>(items: readonly T[], predicate: (item: T, index: number) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (predicate(items[i]!, i)) return i;
  return -1;
}

/** p-th quantile (0..1) of `values`; NaN when empty. */
export function quantile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

/**
 * Exclusive hand-offs (mutex, write lock): for each section after the first, the previous holder's
 * end → its delete sent → the watch event in the next holder's process → the next section's start.
 */
export function handOffs(steps: readonly Step[]): Record<string, number[]> {
  const starts = steps.filter((s) => s.what === 'start');
  const parts: Record<string, number[]> = { 'end → delete sent': [], 'delete sent → its reply': [], 'delete sent → next process hears': [], 'hears → next start': [], 'gap (end → next start)': [] };
  for (let i = 1; i < starts.length; i++) {
    const next = starts[i]!;
    const end = findLast(steps, (s) => s.what === 'end' && s.ns <= next.ns);
    if (end === undefined) continue;
    const sent = steps.find((s) => s.pid === end.pid && s.what === 'call' && s.op === 'delete' && s.path === end.path && s.ns >= end.ns);
    const replied = sent && steps.find((s) => s.pid === end.pid && s.what === 'reply' && s.op === 'delete' && s.path === end.path && s.ns >= sent.ns);
    const heard = sent && steps.find((s) => s.pid === next.pid && s.what === 'event' && s.ns >= sent.ns && s.ns <= next.ns);
    parts['gap (end → next start)']!.push(msBetween(end, next));
    if (sent === undefined) continue;
    parts['end → delete sent']!.push(msBetween(end, sent));
    if (replied !== undefined) parts['delete sent → its reply']!.push(msBetween(sent, replied));
    if (heard !== undefined) {
      parts['delete sent → next process hears']!.push(msBetween(sent, heard));
      parts['hears → next start']!.push(msBetween(heard, next));
    }
  }
  return parts;
}

/**
 * Semaphore admissions by nudge: for each section start preceded by a listing that a data-change
 * event triggered, the nudge's setData sent → the event → the listing sent → its reply → start.
 */
export function nudgeChain(steps: readonly Step[]): { viaNudge: number; admissions: number; parts: Record<string, number[]> } {
  const parts: Record<string, number[]> = { 'nudge sent → next waiter hears': [], 'hears → listing sent': [], 'listing round trip': [], 'listing → start': [] };
  const byPid = new Map<number, Step[]>();
  for (const s of steps) byPid.set(s.pid, [...(byPid.get(s.pid) ?? []), s]);
  let viaNudge = 0;
  let admissions = 0;
  for (const own of byPid.values()) {
    own.forEach((start, i) => {
      if (start.what !== 'start') return;
      admissions++;
      const replyAt = findLastIndex(own, (s, j) => j < i && s.what === 'reply' && s.op === 'getChildren');
      const callAt = findLastIndex(own, (s, j) => j < replyAt && s.what === 'call' && s.op === 'getChildren');
      const eventAt = findLastIndex(own, (s, j) => j < callAt && (s.what === 'event' || s.what === 'start'));
      const event = own[eventAt];
      if (replyAt < 0 || callAt < 0 || event === undefined || event.what !== 'event' || event.op !== 'dataChanged') return;
      const nudge = findLast(steps, (s) => s.what === 'call' && s.op === 'setData' && s.path === event.path && s.ns <= event.ns);
      if (nudge === undefined) return;
      viaNudge++;
      parts['nudge sent → next waiter hears']!.push(msBetween(nudge, event));
      parts['hears → listing sent']!.push(msBetween(event, own[callAt]!));
      parts['listing round trip']!.push(msBetween(own[callAt]!, own[replyAt]!));
      parts['listing → start']!.push(msBetween(own[replyAt]!, start));
    });
  }
  return { viaNudge, admissions, parts };
}

/** Milliseconds spent with 0, 1, 2, ... sections open at once (semaphore: leases in use). */
export function timeAtConcurrency(steps: readonly Step[]): Map<number, number> {
  const marks = steps.filter((s) => s.what === 'start' || s.what === 'end');
  const at = new Map<number, number>();
  let open = 0;
  for (let i = 0; i + 1 < marks.length; i++) {
    open += marks[i]!.what === 'start' ? 1 : -1;
    at.set(open, (at.get(open) ?? 0) + msBetween(marks[i]!, marks[i + 1]!));
  }
  return at;
}

/** Calls and watch events per critical section, by method / event type. */
export function requestsPerSection(steps: readonly Step[]): Record<string, number> {
  const sections = steps.filter((s) => s.what === 'start').length;
  const counts: Record<string, number> = {};
  for (const s of steps) if (s.what === 'call' || s.what === 'event') counts[`${s.what} ${s.op}`] = (counts[`${s.what} ${s.op}`] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, Math.round((v / sections) * 100) / 100]));
}
