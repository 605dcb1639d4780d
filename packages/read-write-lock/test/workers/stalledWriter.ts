/**
 * A process that waits for the write lock of an InterProcessReadWriteLock and reports its grant
 * (the stalled-waiter protocol: core/test/support/stalledWaiter.ts).
 * Usage: stalledWriter.ts <connectString> <lockPath> <sessionTimeoutMs>
 */
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { runStalledWaiter } from '../../../core/test/support/stalledWaiter.js';

await runStalledWaiter((session, path) => new InterProcessReadWriteLock(session, path).writeLock().acquire());
