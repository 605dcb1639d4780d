/**
 * Process P of the stalled-waiter safety test: waits for an InterProcessMutex,
 * freezes on command. Protocol: core/test/support/stalledWaiter.ts.
 * Usage: stalledWaiter.ts <connectString> <lockPath> <sessionTimeoutMs>
 */
import { InterProcessMutex } from '@zk-recipes/mutex';
import { runStalledWaiter } from '../../../core/test/support/stalledWaiter.js';

await runStalledWaiter((session, path) => new InterProcessMutex(session, path).acquire());
