/**
 * A demo worker process: takes the mutex a few times and reports each step as a JSON line on
 * stdout for the demo's timeline. Usage: mutexContender.ts <connectString> <lockPath> <name> <rounds> <holdMs>
 */
import { ZkSession } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';

const [connectString, lockPath, name, roundsArg, holdMsArg] = process.argv.slice(2) as [string, string, string, string, string];
const report = (event: string, extra: Record<string, unknown> = {}) =>
  process.stdout.write(`${JSON.stringify({ name, event, at: Date.now(), ...extra })}\n`);

// The label names this process's lock nodes (with its host and pid) in `zk-recipes inspect`.
const session = await ZkSession.connect({ connectString, sessionTimeoutMs: 10_000, label: name });
const mutex = new InterProcessMutex(session, lockPath);
for (let round = 1; round <= Number(roundsArg); round++) {
  report('waiting', { round });
  await mutex.withLock(async (lock) => {
    report('acquired', { round, token: lock.fencingToken.toString(), node: lock.path.split('/').pop() });
    await new Promise((resolve) => setTimeout(resolve, Number(holdMsArg)));
    report('releasing', { round });
  });
}
await session.close();
