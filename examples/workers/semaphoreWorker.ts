/**
 * A demo process taking leases of one InterProcessSemaphore, one at a time, `rounds` times, each
 * held for `holdMs`. Reports `waiting`, `acquired` (fencing token) and `releasing`.
 * Usage: semaphoreWorker.ts <connectString> <path> <maxLeases> <rounds> <holdMs>
 */
import { InterProcessSemaphore } from '@zk-recipes/semaphore';
import { connectAndWait, finish, report, sleep } from './demoWorker.js';

const [connectString, path, maxLeases, rounds, holdMs] = process.argv.slice(2) as [string, string, string, string, string];
const session = await connectAndWait(connectString);
const semaphore = new InterProcessSemaphore(session, path, { maxLeases: Number(maxLeases) });
for (let round = 1; round <= Number(rounds); round++) {
  report('waiting', { round });
  await semaphore.withLock(async (lease) => {
    report('acquired', { round, token: lease.fencingToken });
    await sleep(Number(holdMs));
    report('releasing', { round });
  });
}
await finish(session);
