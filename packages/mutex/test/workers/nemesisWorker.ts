/**
 * A contender of the nemesis test (`runNemesis`): loops acquire → hold → release on one
 * InterProcessMutex with its own session until told to stop, printing its holds.
 * Usage: nemesisWorker.ts <connectString> <lockPath> <sessionTimeoutMs> <chatterPath>
 */
import { ZkSession } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { runNemesisWorker } from '@zk-recipes/testing';

const [connectString, lockPath, sessionTimeoutArg, chatterPath] = process.argv.slice(2);
if (connectString === undefined || lockPath === undefined) throw new Error('usage: nemesisWorker.ts <connectString> <lockPath> <sessionTimeoutMs> <chatterPath>');
const sessionTimeoutMs = Number(sessionTimeoutArg ?? 3000);

const session = await ZkSession.connect({ connectString, sessionTimeoutMs, connectionTimeoutMs: 30_000 });
const mutex = new InterProcessMutex(session, lockPath);
await runNemesisWorker({
  session,
  // Each acquisition's deadline is the loop's (five session timeouts, or a short one).
  acquire: (signal, timeoutMs) => mutex.acquire({ signal, timeoutMs }),
  ...(chatterPath ? { chatterPath } : {}),
});
