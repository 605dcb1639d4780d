/**
 * Curator's revocation protocol on the read/write lock: `acquire({ onRevoke })` on a
 * writer (Curator's write lock is an `InterProcessMutex`, which Curator makes revocable) is told
 * when `requestRevocation()` writes `__REVOKE__` to its node. Orders come from watches and round
 * trips (`caughtUp`), never timers. More on the protocol: packages/mutex/test/revocation.int.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { requestRevocation, ZkSession, type LockHandle } from '@zk-recipes/core';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { testConnectString, uniqueRoot } from '@zk-recipes/testing';
import { brief, caughtUp, settledInWait, track, untilQueue, within } from '../../core/test/support/adversary.js';

const root = uniqueRoot('rw-revocation');
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

describe('InterProcessReadWriteLock revocation', () => {
  it('requestRevocation() on a write-lock holder with onRevoke: called once, after acquire() resolved; it releases and the reader behind acquires', async () => {
    const path = `${root}/writer`;
    const [sW, sR, sOp] = await Promise.all([connect(), connect(), connect()]);
    const order: string[] = [];
    const writer: LockHandle = await new InterProcessReadWriteLock(sW, path).writeLock().acquire({
      onRevoke: () => {
        order.push('revoke');
        void writer.release();
      },
    });
    order.push('acquired');
    const reader = track(new InterProcessReadWriteLock(sR, path).readLock().acquire());
    await untilQueue(sOp, path, 2);
    await settledInWait(sR);
    await caughtUp(sW);
    expect({ order, reader: reader.outcome.state }).toEqual({ order: ['acquired'], reader: 'pending' });

    await requestRevocation(sOp, writer.path);
    const granted = await within(reader.settled, BOUND_MS, 'the reader to acquire once the writer released');
    expect(brief(granted)).toEqual({ state: 'resolved' });
    await caughtUp(sW);
    expect({ order, held: writer.held }).toEqual({ order: ['acquired', 'revoke'], held: false });
    if (granted.state === 'resolved') await granted.value.release();
  });

  it('a writer without onRevoke is not affected by a request: it keeps the lock and the reader behind keeps waiting', async () => {
    const path = `${root}/writer-not-revocable`;
    const [sW, sR, sOp] = await Promise.all([connect(), connect(), connect()]);
    const writer = await new InterProcessReadWriteLock(sW, path).writeLock().acquire();
    const reader = track(new InterProcessReadWriteLock(sR, path).readLock().acquire());
    await untilQueue(sOp, path, 2);
    await settledInWait(sR);

    await requestRevocation(sOp, writer.path);
    await settledInWait(sR); // the reader has seen the write to the node it waits for, and acted on it
    await caughtUp(sW);
    expect({ held: writer.held, aborted: writer.signal.aborted, reader: reader.outcome.state }).toEqual({ held: true, aborted: false, reader: 'pending' });
    await writer.release();
    const granted = await within(reader.settled, BOUND_MS, 'the reader to acquire once the writer released');
    expect(brief(granted)).toEqual({ state: 'resolved' });
    if (granted.state === 'resolved') await granted.value.release();
  });

  it('a reader with onRevoke is asked too (the protocol is per node, not per kind)', async () => {
    const path = `${root}/reader`;
    const [sR, sOp] = await Promise.all([connect(), connect()]);
    let told!: () => void;
    const asked = new Promise<void>((resolve) => (told = resolve));
    const reader = await new InterProcessReadWriteLock(sR, path).readLock().acquire({ onRevoke: () => told() });
    await requestRevocation(sOp, reader.path);
    await within(asked, BOUND_MS, "the reader's onRevoke");
    expect(reader.held).toBe(true); // asked, not released: that is up to the holder
    await reader.release();
  });
});
