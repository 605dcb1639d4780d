/**
 * The checker of the read/write lock's multi-process proofs: critical sections recorded by
 * separate processes (Node or Java) on one monotonic clock.
 */

/** One critical section: which half of the lock, who held it, and when (CLOCK_MONOTONIC ns). */
export interface Section {
  lock: 'read' | 'write';
  worker: string;
  start: bigint;
  end: bigint;
}

/** What the checker found. */
export interface RwReport {
  /** Pairs where a write section overlaps any other section: must be empty. */
  writeOverlaps: Array<[Section, Section]>;
  /** Most read sections in progress at one instant: > 1 proves readers share. */
  maxConcurrentReaders: number;
}

/** Checks sections against the read/write contract. Touching ends (a.end === b.start) do not overlap. */
export function checkReadWrite(sections: readonly Section[]): RwReport {
  const sorted = [...sections].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const writeOverlaps: Array<[Section, Section]> = [];
  for (let i = 0; i < sorted.length; i++) {
    const a = sorted[i]!;
    for (let j = i + 1; j < sorted.length && sorted[j]!.start < a.end; j++) {
      const b = sorted[j]!;
      if (a.lock === 'write' || b.lock === 'write') writeOverlaps.push([a, b]);
    }
  }
  const events: Array<[bigint, number]> = [];
  for (const s of sections) {
    if (s.lock !== 'read') continue;
    events.push([s.start, 1], [s.end, -1]);
  }
  // Ends before starts at the same instant: touching sections are not concurrent.
  events.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
  let current = 0;
  let maxConcurrentReaders = 0;
  for (const [, delta] of events) {
    current += delta;
    maxConcurrentReaders = Math.max(maxConcurrentReaders, current);
  }
  return { writeOverlaps, maxConcurrentReaders };
}

/** Picks the section lines out of workers' JSON output (ours and bench/java's CuratorWorker). */
export function sectionsOf(lines: readonly unknown[]): Section[] {
  const sections: Section[] = [];
  for (const line of lines) {
    const l = line as { type?: string; lock?: string; worker?: string; start?: string; end?: string };
    if (l.type !== 'section' || (l.lock !== 'read' && l.lock !== 'write')) continue;
    sections.push({ lock: l.lock, worker: String(l.worker), start: BigInt(l.start!), end: BigInt(l.end!) });
  }
  return sections;
}
