/** Act 3, InterProcessSemaphore: six processes, three leases; never more than three holders. */
import { findOverlaps, maxConcurrency, timeAtConcurrency } from '@zk-recipes/testing';
import { byStart, sections, startCast, type Act } from '../act.js';
import { within } from '../processes.js';
import { Checks, duration, heading, Timeline } from '../screen.js';

const names = ['lease-1', 'lease-2', 'lease-3', 'lease-4', 'lease-5', 'lease-6'];
const MAX_LEASES = 3;
const ROUNDS = 2;
const HOLD_MS = 400;

export const semaphoreAct: Act = async ({ connectString, path }) => {
  heading('3/5', `InterProcessSemaphore: ${MAX_LEASES} leases, ${names.length} processes, ${ROUNDS} leases each, ${HOLD_MS} ms per lease`, `never more than ${MAX_LEASES} ██ on a line (··: waiting for a lease)`);
  const workers = await startCast(names, 'semaphoreWorker.ts', () => [connectString, path, String(MAX_LEASES), String(ROUNDS), String(HOLD_MS)]);
  const t0 = process.hrtime.bigint();
  const timeline = new Timeline(t0, names);
  for (const w of workers) {
    w.onLine((line) => {
      if (line.type === 'waiting') timeline.event(line.at, w.name, '··');
      if (line.type === 'acquired') timeline.event(line.at, w.name, '██', `${w.name} gets a lease (fencing token ${line.token})`);
      if (line.type === 'releasing') timeline.event(line.at, w.name, '  ');
    });
    w.send('go');
  }
  await within(60_000, 'the semaphore processes finishing', Promise.all(workers.map((w) => w.finished())));
  timeline.close();

  const leases = workers.flatMap((w) => sections(w)).sort(byStart);
  const checks = new Checks();
  checks.check(
    leases.length === names.length * ROUNDS && findOverlaps(leases, { maxConcurrent: MAX_LEASES }).length === 0,
    `never more than ${MAX_LEASES} at once: ${leases.length} leases by ${names.length} processes, at most ${maxConcurrency(leases)} held together (all ${MAX_LEASES} in use for ${duration(0n, timeAtConcurrency(leases, MAX_LEASES))})`,
    `${leases.length} leases reported (want ${names.length * ROUNDS}); up to ${maxConcurrency(leases)} held at once, the limit is ${MAX_LEASES}`,
  );
  return { summary: `semaphore: ${leases.length} leases by ${names.length} processes, at most ${MAX_LEASES} at once`, failures: checks.failures };
};
