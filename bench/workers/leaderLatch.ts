/**
 * One participant of `npm run bench:leader`: a LeaderLatch with its own session, printing when it
 * becomes leader (`leader`, at its `isLeader` event) and when it is told to resign, the moment
 * right before `close()` (`closing`); then a new latch joins at once. Times are
 * `process.hrtime.bigint()` (CLOCK_MONOTONIC, as Java's `System.nanoTime()`).
 * Usage: leaderLatch.ts <connectString> <path> <sessionTimeoutMs> <id>
 * Reads `resign` and `stop` on stdin.
 */
import { createInterface } from 'node:readline';
import { ZkSession } from '@zk-recipes/core';
import { LeaderLatch } from '@zk-recipes/leader';
import { report } from '@zk-recipes/testing';

const [connectString, path, sessionArg, id] = process.argv.slice(2);
if (connectString === undefined || path === undefined || id === undefined) throw new Error('usage: leaderLatch.ts <connectString> <path> <sessionTimeoutMs> <id>');
const now = (): bigint => process.hrtime.bigint();
const session = await ZkSession.connect({ connectString, sessionTimeoutMs: Number(sessionArg ?? 2000) });

const join = (): LeaderLatch => {
  const latch = new LeaderLatch(session, path, { id });
  latch.on('isLeader', () => report({ type: 'leader', worker: id, t: now() }));
  latch.start();
  return latch;
};
let latch = join();
let queue = Promise.resolve();
createInterface({ input: process.stdin }).on('line', (line) => {
  const command = line.trim();
  queue = queue.then(async () => {
    if (command === 'resign') {
      report({ type: 'closing', worker: id, t: now() });
      await latch.close();
      latch = join();
    } else if (command === 'stop') {
      await latch.close();
      await session.close();
      report({ type: 'done', worker: id });
      process.exit(0);
    }
  });
});
report({ type: 'ready', worker: id });
