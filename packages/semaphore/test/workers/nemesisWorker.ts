/**
 * A contender of the semaphore's nemesis test (`runNemesis`): loops acquire → hold → release on one
 * InterProcessSemaphore with its own session until told to stop, printing its leases.
 * Usage: nemesisWorker.ts <connectString> <lockPath> <sessionTimeoutMs> <chatterPath> <maxLeases> <queue|curator>
 * `lockPath` is where the lease nodes are: the semaphore's path, or its `leases` child in the
 * `curator` layout (the semaphore is its parent then).
 */
import { ZkSession } from '@zk-recipes/core';
import { InterProcessSemaphore } from '@zk-recipes/semaphore';
import { runNemesisWorker } from '@zk-recipes/testing';

const [connectString, lockPath, sessionTimeoutArg, chatterPath, maxLeasesArg, layoutArg] = process.argv.slice(2);
if (connectString === undefined || lockPath === undefined) {
  throw new Error('usage: nemesisWorker.ts <connectString> <lockPath> <sessionTimeoutMs> <chatterPath> <maxLeases> <queue|curator>');
}
const sessionTimeoutMs = Number(sessionTimeoutArg ?? 3000);
const layout = layoutArg === 'curator' ? 'curator' : 'queue';
const path = layout === 'curator' ? lockPath.slice(0, lockPath.lastIndexOf('/')) : lockPath;

const session = await ZkSession.connect({ connectString, sessionTimeoutMs, connectionTimeoutMs: 30_000 });
const semaphore = new InterProcessSemaphore(session, path, { maxLeases: Number(maxLeasesArg ?? 2), layout });
await runNemesisWorker({
  session,
  // A waiter stuck behind a node nobody will delete would hang the run: give up and queue again.
  acquire: (signal) => semaphore.acquire({ signal, timeoutMs: sessionTimeoutMs * 5 }),
  // Waiters leave only by a grant or their deadline: an acquisition stuck with a lease free must
  // show as the idle gap it is, not be broken up by a waiter giving up.
  giveUp: { chance: 0, afterMs: [0, 0] },
  ...(chatterPath ? { chatterPath } : {}),
});
