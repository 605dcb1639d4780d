/**
 * Curator's revocation protocol on the multi-lock: `acquire({ onRevoke })` passes
 * `onRevoke` to every member, so `__REVOKE__` written to any member's node asks the holder of the
 * whole multi-lock to release. More on the protocol: packages/mutex/test/revocation.int.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { requestRevocation, ZkSession } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { InterProcessMultiLock, type MultiLockHandle } from '@zk-recipes/multi-lock';
import { testConnectString, uniqueRoot } from '@zk-recipes/testing';
import { brief, caughtUp, settledInWait, track, untilQueue, within } from '../../core/test/support/adversary.js';

const root = uniqueRoot('multi-revocation');
const BOUND_MS = 15_000;
let sessions: ZkSession[] = [];

async function connect(): Promise<ZkSession> {
  const session = await ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs: 6000 });
  sessions.push(session);
  return session;
}

afterEach(async () => {
  const open = sessions;
  sessions = [];
  await Promise.all(open.map((s) => s.close()));
});

describe('InterProcessMultiLock revocation', () => {
  it("requestRevocation() on the second member's node calls onRevoke once; the multi-lock released in it lets a waiter on that member in", async () => {
    const [a, b] = [`${root}/a`, `${root}/b`];
    const [sH, sW, sOp] = await Promise.all([connect(), connect(), connect()]);
    const order: string[] = [];
    const multi = new InterProcessMultiLock([new InterProcessMutex(sH, a), new InterProcessMutex(sH, b)]);
    let released: Promise<void> | undefined;
    const handle: MultiLockHandle = await multi.acquire({
      onRevoke: () => {
        order.push('revoke');
        released = handle.release();
      },
    });
    order.push('acquired');
    const waiter = track(new InterProcessMutex(sW, b).acquire());
    await untilQueue(sOp, b, 2);
    await settledInWait(sW);
    await caughtUp(sH);
    expect({ order, waiter: waiter.outcome.state }).toEqual({ order: ['acquired'], waiter: 'pending' });

    await requestRevocation(sOp, handle.paths[1]!);
    const granted = await within(waiter.settled, BOUND_MS, 'the waiter on b to acquire once the multi-lock released');
    expect(brief(granted)).toEqual({ state: 'resolved' });
    // The waiter on b may be granted before the multi-lock has given a back (its members go one
    // after the other): wait for the release onRevoke started, not for a round trip.
    await within(released ?? Promise.reject(new Error('onRevoke was not called')), BOUND_MS, 'the release onRevoke started');
    expect({ order, held: handle.held }).toEqual({ order: ['acquired', 'revoke'], held: false });
    if (granted.state === 'resolved') await granted.value.release();
  });

  it('a request on a member already held while the multi-lock still waits for the next is told once, after acquire() resolved', async () => {
    const [a, b] = [`${root}/early-a`, `${root}/early-b`];
    const [sH, sB, sOp] = await Promise.all([connect(), connect(), connect()]);
    const blocker = await new InterProcessMutex(sB, b).acquire();
    const order: string[] = [];
    const multi = new InterProcessMultiLock([new InterProcessMutex(sH, a), new InterProcessMutex(sH, b)]);
    let handle: MultiLockHandle | undefined;
    let released: Promise<void> | undefined;
    const acquisition = track(
      multi
        .acquire({
          onRevoke: () => {
            order.push(handle === undefined ? 'revoke without a handle' : 'revoke');
            released = handle?.release();
          },
        })
        .then((h) => {
          handle = h;
          order.push('acquired');
          return h;
        }),
    );
    const [aNode] = await untilQueue(sOp, a, 1);
    await untilQueue(sOp, b, 2);
    await settledInWait(sH); // a is held, b waited for

    await requestRevocation(sOp, aNode!);
    await settledInWait(sH); // the marker on a has been read
    expect({ order, multi: acquisition.outcome.state }).toEqual({ order: [], multi: 'pending' });

    await blocker.release();
    const granted = await within(acquisition.settled, BOUND_MS, 'the multi-lock to acquire once b was released');
    expect(brief(granted)).toEqual({ state: 'resolved' });
    await settledInWait(sH); // the request has been told (a turn after the grant)
    await released; // the release it started (one delete per member, one after the other)
    expect({ order, held: handle?.held }).toEqual({ order: ['acquired', 'revoke'], held: false });
  });
});
