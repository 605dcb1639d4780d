/**
 * The heap of a process whose queued waiters all gave up with their session (run with
 * --expose-gc): N waiters of one session queue behind another session's holder, the session is
 * expired on the server, and the retry policy refuses a lost session, so every waiter ends with
 * RETRIES_EXHAUSTED. A first round of 200, on a session of its own (what a session keeps from its
 * first waiters is part of what is measured), warms up the same code.
 * With `keep-reason`, the `lost` event's reason (the lost session's error) is kept, as a caller
 * logging it would. Prints one JSON line: { startBytes, waitingBytes, endedBytes, codes }, each
 * heap in use after a full collection.
 * Usage: gaveUpHeap.ts <connectString> <rootPath> <n> <plain|keep-reason>
 */
import { expireSession } from '@zk-recipes/testing';
import { LockQueue } from '../../../src/engine/LockQueue.js';
import { exclusiveRule } from '../../../src/engine/OrderingRule.js';
import { retryForever, sessionFailedRetryPolicy } from '../../../src/retry/index.js';
import { ZkSession } from '../../../src/session/index.js';
import { sessionInternals } from '../../../src/session/sessionInternals.js';

const [connectArg, root, nArg, mode] = process.argv.slice(2);
if (connectArg === undefined || root === undefined || nArg === undefined || (mode !== 'plain' && mode !== 'keep-reason')) {
  throw new Error('usage: gaveUpHeap.ts <connectString> <rootPath> <n> <plain|keep-reason>');
}
const connectString: string = connectArg;
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

const holderSession = await ZkSession.connect({ connectString, sessionTimeoutMs: 30_000 });
const kept: unknown[] = [];
const doomedSession = async (): Promise<ZkSession> => {
  const session = await ZkSession.connect({ connectString, sessionTimeoutMs: 30_000, retryPolicy: sessionFailedRetryPolicy(retryForever({ sleepMs: 10 })) });
  if (mode === 'keep-reason') session.on('lost', (reason) => kept.push(reason));
  return session;
};

/** Heap in use after a full collection, once the callbacks already due have run. */
async function heapNow(): Promise<number> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
}

async function until(done: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await done())) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** n waiters queue, their session is lost, the policy ends them; resolves with their codes. */
async function round(session: ZkSession, n: number, path: string, queued: () => Promise<void>): Promise<string[]> {
  const holderQueue = new LockQueue(holderSession, path);
  const holder = await holderQueue.enter({ kind: 'lock-', rule: exclusiveRule });
  const queue = new LockQueue(session, path);
  const outcomes = Array.from({ length: n }, () =>
    queue.enter({ kind: 'lock-', rule: exclusiveRule }).then(
      () => 'granted',
      (err: unknown) => String((err as { code?: unknown }).code),
    ),
  );
  // Queued: every node made, every request answered (each waiter's watches are set).
  await until(async () => ((await holderSession.exists(path))?.numChildren ?? 0) === n + 1 && sessionInternals(session).diagnostics.pendingCalls === 0);
  await queued();
  const connected = new Promise<void>((resolve) => session.once('lost', () => session.once('connected', () => resolve())));
  await expireSession(connectString, sessionInternals(session).credentials);
  const codes = [...new Set(await Promise.all(outcomes))];
  await connected;
  await queue.settled();
  await holderQueue.leave(holder);
  return codes;
}

const warmUp = await doomedSession();
await round(warmUp, 200, `${root}/warm-up`, async () => undefined);
await warmUp.close();
const session = await doomedSession();
const startBytes = await heapNow();
let waitingBytes = 0;
const codes = await round(session, Number(nArg), `${root}/gave-up`, async () => {
  waitingBytes = await heapNow();
});
const endedBytes = await heapNow();
process.stdout.write(`${JSON.stringify({ startBytes, waitingBytes, endedBytes, codes, kept: kept.length })}\n`);
await session.close();
await holderSession.close();
