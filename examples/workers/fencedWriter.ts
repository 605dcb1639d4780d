/**
 * A lock holder that writes to a fenced resource (examples/fencedResource.ts): acquires an
 * InterProcessMutex, then writes `steps` times, `stepMs` apart, each write carrying the handle's
 * fencing token, and stops at the first write the resource rejects. Prints JSON lines:
 * `acquired`, `write` (one per write, with the resource's verdict), `lost` (the session's event),
 * `done`.
 *
 * It deliberately does not look at `handle.signal` between writes: a check there cannot close the
 * window, since a pause can fall between the check and the write. The resource's token check is
 * what stops a holder that lost its lock while it was paused.
 *
 * Used by examples/fencing.ts and by packages/mutex/test/fencing.int.test.ts.
 * Usage: fencedWriter.ts <connectString> <lockPath> <resourceUrl> <key> <sessionTimeoutMs> <steps> <stepMs> [name]
 */
import { ZkSession } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { report, workerName } from '@zk-recipes/testing';
import { fencedWrite } from '../fencedResource.js';

const [connectString, lockPath, resourceUrl, key, sessionTimeoutArg, stepsArg, stepMsArg, nameArg] = process.argv.slice(2);
if (connectString === undefined || lockPath === undefined || resourceUrl === undefined || key === undefined) {
  throw new Error('usage: fencedWriter.ts <connectString> <lockPath> <resourceUrl> <key> <sessionTimeoutMs> <steps> <stepMs> [name]');
}
const steps = Number(stepsArg ?? 1);
const stepMs = Number(stepMsArg ?? 0);
const writer = nameArg ?? workerName();

const session = await ZkSession.connect({ connectString, sessionTimeoutMs: Number(sessionTimeoutArg ?? 10_000) });
session.on('lost', (reason) => report({ type: 'lost', writer, reason: reason.message }));
const mutex = new InterProcessMutex(session, lockPath, { data: writer });

const handle = await mutex.acquire();
report({ type: 'acquired', writer, token: handle.fencingToken, path: handle.path, at: Date.now() });
for (let step = 0; step < steps; step++) {
  const signalAborted = handle.signal.aborted; // as the write goes out (not looked at otherwise)
  const result = await fencedWrite(resourceUrl, { key, token: handle.fencingToken, value: `${writer} step ${step}`, writer });
  report({ type: 'write', writer, step, token: handle.fencingToken, accepted: result.accepted, highest: result.highest, signalAborted });
  if (!result.accepted) break;
  // The holder's "work" between two writes.
  if (stepMs > 0 && step + 1 < steps) await new Promise((resolve) => setTimeout(resolve, stepMs));
}
// Harmless if the lock was lost meanwhile: it neither throws nor deletes anybody else's node.
await handle.release();
await session.close();
report({ type: 'done', writer });
