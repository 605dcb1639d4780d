/**
 * Curator's revocation protocol on the semaphore: `acquire({ onRevoke })` is told when
 * `__REVOKE__` is written to the lease's node, by `requestRevocation()` or by Curator 5.4's
 * `Revoker.attemptRevoke` (bench/java CuratorWorker), in both layouts. Curator's own
 * InterProcessSemaphoreV2 cannot be made revocable, so only our leases listen. Orders come from
 * events (JSON lines, watches) and round trips (`caughtUp`), never timers.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requestRevocation, ZkSession } from '@zk-recipes/core';
import { ensureCuratorPrograms, spawnCuratorWorker, testConnectString, uniqueRoot, type CuratorWorker } from '@zk-recipes/testing';
import { InterProcessSemaphore, type Lease } from '../src/index.js';
import { brief, caughtUp, settledInWait, track, untilQueue, within } from '../../core/test/support/adversary.js';

const root = uniqueRoot('semaphore-revocation');
const BOUND_MS = 20_000;
let sessions: ZkSession[] = [];
const javaWorkers: CuratorWorker[] = [];

async function connect(): Promise<ZkSession> {
  const session = await ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs: 6000 });
  sessions.push(session);
  return session;
}

beforeAll(async () => {
  await ensureCuratorPrograms();
}, 120_000);

afterEach(async () => {
  const open = sessions;
  sessions = [];
  await Promise.all(open.map((s) => s.close()));
});

afterAll(async () => {
  await Promise.all(javaWorkers.map((w) => w.stop()));
});

describe('InterProcessSemaphore revocation', () => {
  it('queue layout: requestRevocation() on a lease with onRevoke: called once, after acquire() resolved; it releases and the waiter gets the lease', async () => {
    const path = `${root}/queue`;
    const [sH, sW, sOp] = await Promise.all([connect(), connect(), connect()]);
    const order: string[] = [];
    const lease: Lease = await new InterProcessSemaphore(sH, path, { maxLeases: 1 }).acquire({
      onRevoke: () => {
        order.push('revoke');
        void lease.release();
      },
    });
    order.push('acquired');
    const waiter = track(new InterProcessSemaphore(sW, path, { maxLeases: 1 }).acquire());
    await untilQueue(sOp, path, 2);
    await settledInWait(sW);
    await caughtUp(sH);
    expect({ order, waiter: waiter.outcome.state }).toEqual({ order: ['acquired'], waiter: 'pending' });

    await requestRevocation(sOp, lease.path);
    const granted = await within(waiter.settled, BOUND_MS, 'the waiter to get the lease once it was given back');
    expect(brief(granted)).toEqual({ state: 'resolved' });
    await caughtUp(sH);
    expect({ order, held: lease.held }).toEqual({ order: ['acquired', 'revoke'], held: false });
    if (granted.state === 'resolved') await granted.value.release();
  });

  it("curator layout: Curator's Revoker.attemptRevoke on our lease node calls onRevoke; the lease given back in it goes to a Curator InterProcessSemaphoreV2 waiter", async () => {
    const path = `${root}/curator`;
    const [sH, sOp] = await Promise.all([connect(), connect()]);
    let askedAt: bigint | undefined;
    let told!: () => void;
    const asked = new Promise<void>((resolve) => (told = resolve));
    let calls = 0;
    const lease: Lease = await new InterProcessSemaphore(sH, path, { maxLeases: 1, layout: 'curator' }).acquire({
      onRevoke: () => {
        calls++;
        askedAt ??= process.hrtime.bigint();
        told();
        void lease.release();
      },
    });
    expect(lease.path.startsWith(`${path}/leases/`)).toBe(true);

    const waiter = await spawnCuratorWorker(['semaphore', testConnectString(), path, '1', '1', '0']);
    javaWorkers.push(waiter);
    await untilQueue(sOp, `${path}/leases`, 2); // Curator's lease node is there: it waits for ours to go
    await caughtUp(sH);
    expect({ calls, sections: waiter.sections().length }).toEqual({ calls: 0, sections: 0 });

    const revoker = await spawnCuratorWorker(['revoke', testConnectString(), lease.path]);
    javaWorkers.push(revoker);
    await revoker.finished();
    await within(asked, BOUND_MS, 'onRevoke to be called');
    await waiter.finished();
    const [section] = waiter.sections();
    expect(section!.start).toBeGreaterThan(askedAt!);
    expect({ calls, held: lease.held }).toEqual({ calls: 1, held: false });
  });
});
