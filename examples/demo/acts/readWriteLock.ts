/**
 * Act 2, InterProcessReadWriteLock: a writer downgrades to a reader, the readers queued behind it
 * join it, a writer queued after them waits for all of them, and a reader queued after that writer
 * waits for the writer (first come, first served: readers cannot starve a writer).
 */
import { maxConcurrency, untilChildCount, type Interval } from '@zk-recipes/testing';
import { sections, startCast, type Act } from '../act.js';
import { within, type WorkerLine, type WorkerProcess } from '../processes.js';
import { Checks, duration, heading, Timeline } from '../screen.js';

const roles: [name: string, role: 'downgrader' | 'reader' | 'writer', holdMs: number, waits: string][] = [
  ['writer-A', 'downgrader', 1000, ''],
  ['reader-1', 'reader', 1000, 'for writer-A'],
  ['reader-2', 'reader', 1000, 'for writer-A'],
  ['writer-B', 'writer', 500, 'for everyone ahead of it'],
  ['reader-3', 'reader', 500, 'for writer-B: a reader never overtakes a waiting writer'],
];
const names = roles.map(([name]) => name);

export const readWriteLockAct: Act = async ({ connectString, path, observer }) => {
  heading('2/5', 'InterProcessReadWriteLock: readers share, a writer is alone, and a writer downgrades', 'RR side by side, WW alone; writer-B waits for every reader ahead of it, reader-3 for writer-B');
  const workers = await startCast(names, 'readWriteWorker.ts', (name) => {
    const [, role, holdMs] = roles.find(([n]) => n === name)!;
    return [connectString, path, role, String(holdMs)];
  });
  const [writerA, ...queued] = workers as [WorkerProcess, ...WorkerProcess[]];
  const t0 = process.hrtime.bigint();
  const timeline = new Timeline(t0, names);
  for (const w of workers) {
    const held = new Set<string>();
    w.onLine((line) => {
      if (line.type === 'acquired') held.add(line.mode as string);
      if (line.type === 'releasing') held.delete(line.mode as string);
      const cell = held.has('write') ? (held.has('read') ? 'WR' : 'WW') : held.has('read') ? 'RR' : '  ';
      if (line.type === 'acquired') timeline.event(line.at, w.name, cell, `${w.name} takes the ${line.mode} lock (fencing token ${line.token})`);
      if (line.type === 'releasing') timeline.event(line.at, w.name, cell, line.mode === 'write' && held.has('read') ? `${w.name} releases the write lock, keeps reading: the downgrade` : undefined);
    });
  }

  // The queue in a known order: each process joins once the one before it has its node.
  writerA.send('go');
  await within(30_000, 'writer-A taking the write lock', writerA.next((l) => l.type === 'acquired', 'taking the write lock'));
  for (const [i, w] of queued.entries()) {
    w.send('go');
    await within(30_000, `${w.name} joining the queue`, untilChildCount(observer, path, i + 2, 30_000));
    timeline.event(process.hrtime.bigint(), w.name, '··', `${w.name} queues and waits ${roles[i + 1]![3]}`);
  }
  writerA.send('downgrade');
  await within(60_000, 'the read/write processes finishing', Promise.all(workers.map((w) => w.finished())));
  timeline.close();

  const mode = (m: string) => (line: WorkerLine) => line.mode === m;
  const writes = workers.flatMap((w) => sections(w, mode('write')));
  const reads = workers.flatMap((w) => sections(w, mode('read')));
  const all = [...writes, ...reads];
  const overlapping = (a: Interval, b: Interval) => a.start < b.end && b.start < a.end;
  const clashes = writes.flatMap((w) => all.filter((s) => s.worker !== w.worker && overlapping(w, s)).map((s) => `${w.worker}'s write with ${s.worker}`));
  const mostReaders = maxConcurrency(reads);
  const section = (name: string, m: string) => all.find((s) => s.worker === name && mode(m)(s.acquired))!;
  const checks = new Checks();
  checks.check(
    writes.length === 2 && reads.length === 4 && clashes.length === 0,
    `a writer was never beside another process: ${writes.map((w) => `${w.worker} wrote ${duration(w.start, w.end)} alone`).join(', ')}`,
    `${writes.length} write and ${reads.length} read sections (want 2 and 4); overlaps: ${clashes.join(', ') || 'none'}`,
  );
  checks.check(mostReaders >= 3, `readers shared the lock: ${mostReaders} read sections at once (writer-A's, after its downgrade, reader-1's, reader-2's)`, `at most ${mostReaders} readers at once, want 3`);
  checks.check(
    section('writer-B', 'write').start >= section('writer-A', 'read').end && section('reader-3', 'read').start >= section('writer-B', 'write').end,
    `first come, first served: writer-B went after writer-A's downgraded read, reader-3 after writer-B`,
    `out of order: writer-B or reader-3 got in ahead of its turn`,
  );
  return { summary: `read/write lock: 4 reads (3 at once), 2 writes alone, a downgrade, in queue order`, failures: checks.failures };
};
