import type { Interval } from '@zk-recipes/testing';

/** A lease held by some worker, CLOCK_MONOTONIC nanoseconds (Node hrtime and Java nanoTime alike). */
export type Section = Interval;

/** Sections from workers' `section` lines (Node's semaphoreWorker and Curator's CuratorWorker print the same shape). */
export { maxConcurrency, sectionIntervals as sectionsOf, timeAtConcurrency } from '@zk-recipes/testing';

/**
 * Release → next holder latencies in ms: for every release (section end) while another worker is
 * waiting, the time until the next waiting worker starts a section (FIFO matching of releases and
 * starts). A worker loops acquire → hold → release, so it is taken to be waiting from the end of
 * its previous section (for its first section: from the first start of the run, i.e. the common
 * "go"). Long values mean a lease sat free while someone waited.
 */
export function handoffLatenciesMs(sections: readonly Section[]): number[] {
  if (sections.length === 0) return [];
  const runStart = sections.reduce((min, s) => (s.start < min ? s.start : min), sections[0]!.start);
  const byWorker = new Map<string, Section[]>();
  for (const s of sections) byWorker.set(s.worker, [...(byWorker.get(s.worker) ?? []), s]);
  // At one instant: ends first (a worker's own release does not count as someone waiting), then
  // wait begins, then starts.
  const END = 0;
  const WAIT = 1;
  const START = 2;
  const timeline: Array<{ t: bigint; kind: 0 | 1 | 2; waited: boolean }> = [];
  for (const list of byWorker.values()) {
    list.sort((a, b) => (a.start < b.start ? -1 : 1));
    list.forEach((section, i) => {
      const waitingSince = i === 0 ? runStart : list[i - 1]!.end;
      const waited = waitingSince < section.start;
      if (waited) timeline.push({ t: waitingSince, kind: WAIT, waited });
      timeline.push({ t: section.start, kind: START, waited }, { t: section.end, kind: END, waited });
    });
  }
  timeline.sort((a, b) => (a.t < b.t ? -1 : a.t > b.t ? 1 : a.kind - b.kind));
  let waiting = 0;
  const freed: bigint[] = [];
  const latencies: number[] = [];
  for (const event of timeline) {
    if (event.kind === END) {
      if (waiting > 0) freed.push(event.t);
    } else if (event.kind === WAIT) {
      waiting++;
    } else if (event.waited) {
      waiting--;
      const freedAt = freed.shift();
      if (freedAt !== undefined) latencies.push(Number(event.t - freedAt) / 1e6);
    }
  }
  return latencies;
}

/** The p-th percentile (0..100) of `values`, nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
