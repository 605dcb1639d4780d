/**
 * A demo process contending for one InterProcessMutex: `rounds` turns of `holdMs` each, reporting
 * `waiting`, `acquired` (fencing token, node) and `releasing` (just before the release, so the
 * section it reports never ends after the next holder's begins).
 * Usage: mutexContender.ts <connectString> <lockPath> <rounds> <holdMs>
 */
import { InterProcessMutex } from '@zk-recipes/mutex';
import { connectAndWait, finish, report, sleep } from './demoWorker.js';

const [connectString, lockPath, rounds, holdMs] = process.argv.slice(2) as [string, string, string, string];
const session = await connectAndWait(connectString);
const mutex = new InterProcessMutex(session, lockPath);
for (let round = 1; round <= Number(rounds); round++) {
  report('waiting', { round });
  await mutex.withLock(async (lock) => {
    report('acquired', { round, token: lock.fencingToken, node: lock.path.split('/').pop() });
    await sleep(Number(holdMs));
    report('releasing', { round });
  });
}
await finish(session);
