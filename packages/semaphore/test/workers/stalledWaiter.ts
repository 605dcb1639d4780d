/**
 * Process P of the stalled-waiter safety test: waits for the one lease of an
 * InterProcessSemaphore (queue layout), freezes on command. Protocol:
 * core/test/support/stalledWaiter.ts.
 * Usage: stalledWaiter.ts <connectString> <semaphorePath> <sessionTimeoutMs>
 */
import { InterProcessSemaphore } from '@zk-recipes/semaphore';
import { runStalledWaiter } from '../../../core/test/support/stalledWaiter.js';

await runStalledWaiter((session, path) => new InterProcessSemaphore(session, path, { maxLeases: 1 }).acquire());
