/**
 * Deadlines that hold while the server stalls (docs/architecture.md, "Deadlines"): with the
 * server stopped (SIGSTOP), every InterProcessSemaphore acquisition (both layouts) settles by its
 * deadline or abort plus the documented slack (50 ms), none is granted, and no node is left once the
 * server resumes.
 */
import { InterProcessSemaphore } from '@zk-recipes/semaphore';
import { uniqueRoot } from '@zk-recipes/testing';
import { describeUnderStall, STALLS, type StallRecipe } from '../../core/test/support/stalledServer.js';

const root = uniqueRoot('semaphore-stalled-server');
const semaphore = (layout: 'queue' | 'curator'): StallRecipe => ({
  acquire: (session, path, options) => new InterProcessSemaphore(session, path, { maxLeases: 1, layout }).acquire(options),
  queueDir: (path) => (layout === 'queue' ? path : `${path}/leases`),
  // A `curator`-layout waiter waits for the internal lock, or holds it while its lease waits.
  ...(layout === 'curator' ? { queueDirs: (path: string) => [`${path}/leases`, `${path}/locks`] } : {}),
});

describeUnderStall('InterProcessSemaphore (queue layout)', semaphore('queue'), `${root}/queue`);
describeUnderStall('InterProcessSemaphore (curator layout)', semaphore('curator'), `${root}/curator`, { stalls: [STALLS[0]] });
