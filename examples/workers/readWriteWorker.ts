/**
 * A demo process on one InterProcessReadWriteLock: a `reader` or a `writer` holds its lock for
 * `holdMs`; a `downgrader` takes the write lock, waits for the demo's `downgrade`, takes the read
 * lock (at once: the write lock's holder may), gives the write lock up and reads for `holdMs`.
 * Reports `acquired` and `releasing` with the `mode` (read or write).
 * Usage: readWriteWorker.ts <connectString> <lockPath> <reader|writer|downgrader> <holdMs>
 */
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { command, connectAndWait, finish, report, sleep } from './demoWorker.js';

const [connectString, lockPath, role, holdMs] = process.argv.slice(2) as [string, string, string, string];
const session = await connectAndWait(connectString);
const rw = new InterProcessReadWriteLock(session, lockPath);
if (role === 'reader' || role === 'writer') {
  const mode = role === 'reader' ? 'read' : 'write';
  await (mode === 'read' ? rw.readLock() : rw.writeLock()).withLock(async (lock) => {
    report('acquired', { mode, token: lock.fencingToken });
    await sleep(Number(holdMs));
    report('releasing', { mode });
  });
} else {
  const write = await rw.writeLock().acquire();
  report('acquired', { mode: 'write', token: write.fencingToken });
  await command('downgrade');
  const read = await rw.readLock().acquire();
  report('acquired', { mode: 'read', token: read.fencingToken });
  report('releasing', { mode: 'write' });
  await write.release();
  await sleep(Number(holdMs));
  report('releasing', { mode: 'read' });
  await read.release();
}
await finish(session);
