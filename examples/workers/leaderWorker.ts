/**
 * A demo process in a leader election (LeaderLatch), with a short session timeout so that a leader
 * killed outright is replaced within seconds. Reports `leader` (fencing token, node) when it is
 * elected and `notLeader` when its leadership's signal aborts. On `stop` it reports `resigning`
 * (its leadership, if any, ends there), closes the latch (the next in line is elected at once) and
 * exits.
 * Usage: leaderWorker.ts <connectString> <electionPath> <sessionTimeoutMs>
 */
import { LeaderLatch } from '@zk-recipes/leader';
import { command, connectAndWait, finish, report } from './demoWorker.js';

const [connectString, path, sessionTimeoutMs] = process.argv.slice(2) as [string, string, string];
const session = await connectAndWait(connectString, Number(sessionTimeoutMs));
const latch = new LeaderLatch(session, path, { id: process.env.DEMO_WORKER_NAME });
latch.on('isLeader', (leadership) => {
  report('leader', { token: leadership.fencingToken, node: leadership.node });
  leadership.signal.addEventListener('abort', () => report('notLeader', { reason: String((leadership.signal.reason as { code?: string }).code) }), { once: true });
});
latch.start();
await command('stop');
report('resigning');
await latch.close();
await finish(session);
