/** What every act of the demo gets, and what it hands back for the verdict. */
import type { ZkSession } from '@zk-recipes/core';
import type { Interval } from '@zk-recipes/testing';
import { startWorkers, type WorkerLine, type WorkerProcess } from './processes.js';
import { dim, note } from './screen.js';

export interface ActContext {
  connectString: string;
  /** A fresh path for this act's locks. */
  path: string;
  /** The demo's own session, for watching the lock directories (never a contender). */
  observer: ZkSession;
}

export interface ActResult {
  /** One line for the verdict: what was shown and checked. */
  summary: string;
  /** Every check that failed (none: the act passed). */
  failures: string[];
}

export type Act = (context: ActContext) => Promise<ActResult>;

/** Every section a worker reported: from each `acquired` line to the `releasing` line after it. */
export function sections(worker: WorkerProcess, test: (line: WorkerLine) => boolean = () => true): (Interval & { acquired: WorkerLine })[] {
  const out: (Interval & { acquired: WorkerLine })[] = [];
  let open: WorkerLine | undefined;
  for (const line of worker.lines.filter(test)) {
    if (line.type === 'acquired') open = line;
    if (line.type === 'releasing' && open !== undefined) {
      out.push({ worker: worker.name, start: open.at, end: line.at, acquired: open });
      open = undefined;
    }
  }
  return out;
}

export const byStart = (a: Interval, b: Interval): number => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0);

/** Starts an act's processes, saying so first (under load each takes a moment), then who is which PID. */
export async function startCast(
  names: readonly string[],
  script: string,
  args: (name: string) => readonly string[],
  detail: (name: string) => string = () => '',
): Promise<WorkerProcess[]> {
  note(dim(`starting ${names.length} processes, each connecting a ZooKeeper session of its own...`));
  const workers = await startWorkers(names, script, args);
  note(`${workers.map((w) => `${w.name} = pid ${w.pid}${detail(w.name)}`).join(', ')}; lanes in that order`);
  return workers;
}
