/**
 * Deadlines that hold while the server stalls (docs/architecture.md, "Deadlines"): with the
 * server stopped (SIGSTOP), every InterProcessMultiLock acquisition (two mutexes) settles by its
 * deadline or abort plus the documented slack (50 ms), none is granted, and no node is left once the
 * server resumes — the members it took are given back without holding the caller past the slack.
 */
import { describe, expect, it } from 'vitest';
import { InterProcessMultiLock } from '@zk-recipes/multi-lock';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { ZkSession } from '@zk-recipes/core';
import { pollUntil, TestingServer, uniqueRoot } from '@zk-recipes/testing';
import { codeOf, untilQueue } from '../../core/test/support/adversary.js';
import { describeUnderStall, jitterMs, PROMISED_SLACK_MS, type StallRecipe } from '../../core/test/support/stalledServer.js';

const root = uniqueRoot('multi-lock-stalled-server');
const multiLock: StallRecipe = {
  acquire: (session, path, options) => new InterProcessMultiLock([new InterProcessMutex(session, `${path}/a`), new InterProcessMutex(session, `${path}/b`)]).acquire(options),
  queueDir: (path) => `${path}/a`,
  queueDirs: (path) => [`${path}/a`, `${path}/b`],
};

describeUnderStall('InterProcessMultiLock', multiLock, root);


describe('InterProcessMultiLock giving back what it took while the server stalls', () => {
  it('the first member held, the second waited for: the deadline passes during the stall and the multi-lock settles within the slack, its first member given back once the server resumes', async () => {
    const server = await TestingServer.start({ tickTimeMs: 1000, forceSync: false });
    const sessions = await Promise.all([0, 1].map(() => ZkSession.connect({ connectString: server.connectString, sessionTimeoutMs: 15_000 })));
    const [session, other] = sessions as [ZkSession, ZkSession];
    try {
      const path = `${root}/rollback`;
      const blocker = await new InterProcessMutex(other, `${path}/b`).acquire();
      const startedAt = performance.now();
      const multi = new InterProcessMultiLock([new InterProcessMutex(session, `${path}/a`), new InterProcessMutex(session, `${path}/b`)]);
      const acquiring = multi.acquire({ timeoutMs: 2000 }).then(
        () => ({ code: 'granted', settledMs: performance.now() - startedAt }),
        (err: unknown) => ({ code: codeOf(err), settledMs: performance.now() - startedAt }),
      );
      await untilQueue(other, `${path}/b`, 2); // the first member held, the second waited for
      expect((await other.getChildren(`${path}/a`)).children).toHaveLength(1);
      await server.pause();
      const outcome = await acquiring;
      expect(outcome.code).toBe('LOCK_TIMEOUT');
      expect(outcome.settledMs, `time bound: the multi-lock settled ${outcome.settledMs} ms after its call, due at 2000 ms`).toBeLessThanOrEqual(2000 + PROMISED_SLACK_MS + jitterMs());
      await server.resume();
      await pollUntil(async () => (await other.getChildren(`${path}/a`)).children.length === 0 && (await other.getChildren(`${path}/b`)).children.length === 1, 20_000, 'the first member given back');
      await blocker.release();
    } finally {
      await server.resume().catch(() => undefined);
      await Promise.all(sessions.map((s) => s.close()));
      await server.stop();
    }
  });
});
