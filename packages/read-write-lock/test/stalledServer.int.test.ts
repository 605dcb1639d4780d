/**
 * Deadlines that hold while the server stalls (docs/architecture.md, "Deadlines"): with the
 * server stopped (SIGSTOP), every acquisition of the write lock and the read lock settles by its
 * deadline or abort plus the documented slack (50 ms), none is granted, and no node is left once the
 * server resumes.
 */
import { describe, expect, it } from 'vitest';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { ZkSession } from '@zk-recipes/core';
import { pollUntil, TestingServer, uniqueRoot } from '@zk-recipes/testing';
import { codeOf } from '../../core/test/support/adversary.js';
import { describeUnderStall, jitterMs, PROMISED_SLACK_MS, type StallRecipe } from '../../core/test/support/stalledServer.js';

const root = uniqueRoot('rw-stalled-server');
/** Writers everywhere, except that the waiter queued behind the holder is a reader behind a writer. */
const readWrite: StallRecipe = {
  acquire: (session, path, options) => {
    const lock = new InterProcessReadWriteLock(session, path);
    const queuedReader = path.endsWith('/held') && options.timeoutMs !== undefined;
    return (queuedReader ? lock.readLock() : lock.writeLock()).acquire(options);
  },
  queueDir: (path) => path,
};

describeUnderStall('InterProcessReadWriteLock', readWrite, root);


describe('InterProcessReadWriteLock downgrade while the server stalls', () => {
  it("the write holder's read lock with a deadline or an abort settles within it plus the slack, and no read node stays", async () => {
    const server = await TestingServer.start({ tickTimeMs: 1000, forceSync: false });
    const session = await ZkSession.connect({ connectString: server.connectString, sessionTimeoutMs: 15_000 });
    const observer = await ZkSession.connect({ connectString: server.connectString, sessionTimeoutMs: 15_000 });
    try {
      const dir = `${root}/downgrade`;
      const lock = new InterProcessReadWriteLock(session, dir);
      const write = await lock.writeLock().acquire();
      // In the write holder's context: its read lock is a downgrade (one round trip, at its place).
      await server.pause();
      const outcomes: Array<{ due: number; settled: number; code: string | undefined }> = [];
      const timed = performance.now();
      await lock.readLock().acquire({ timeoutMs: 1500 }).then(
        () => outcomes.push({ due: 1500, settled: performance.now() - timed, code: 'granted' }),
        (err: unknown) => outcomes.push({ due: 1500, settled: performance.now() - timed, code: codeOf(err) }),
      );
      const aborted = performance.now();
      await lock.readLock().acquire({ signal: AbortSignal.timeout(1000) }).then(
        () => outcomes.push({ due: 1000, settled: performance.now() - aborted, code: 'granted' }),
        (err: unknown) => outcomes.push({ due: 1000, settled: performance.now() - aborted, code: codeOf(err) }),
      );
      await server.resume();
      expect(outcomes.map((o) => o.code)).toEqual(['LOCK_TIMEOUT', 'ABORTED']);
      for (const o of outcomes) expect(o.settled, `time bound: ${JSON.stringify(o)}`).toBeLessThanOrEqual(o.due + PROMISED_SLACK_MS + jitterMs());
      // The read node a stalled transaction may create when the server resumes is deleted. Asked on
      // the holder's session, which the server answers after its stalled requests: another session's
      // read may be served before the stalled transaction is applied, and see one node too early.
      await pollUntil(async () => (await session.getChildren(dir)).children.length === 1, 15_000, 'only the write node left');
      expect((await observer.getChildren(dir)).children).toEqual([write.path.slice(dir.length + 1)]);
      await write.release();
    } finally {
      await server.resume().catch(() => undefined);
      await Promise.all([session.close(), observer.close()]);
      await server.stop();
    }
  });
});
