/**
 * Process P of the stalled-waiter safety test: waits for the read lock of an
 * InterProcessReadWriteLock, freezes on command. Protocol: core/test/support/stalledWaiter.ts.
 * Usage: stalledReader.ts <connectString> <lockPath> <sessionTimeoutMs>
 */
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { runStalledWaiter } from '../../../core/test/support/stalledWaiter.js';

await runStalledWaiter((session, path) => new InterProcessReadWriteLock(session, path).readLock().acquire());
