/**
 * A re-entry after this process froze past its session must be refused like a late grant
 * (docs/architecture.md, "Only events the session can still vouch for"): the scenario for any
 * re-entrant lock.
 *
 * This process holds the lock on a short session; another process (a stalled-waiter worker, see
 * `stalledWaiter.ts`) waits for it. This process then blocks its own event loop for 2.5 session
 * timeouts (`Atomics.wait`: a GC pause stand-in): the server expires its session, deletes its node
 * and grants the other process. Right after the thaw, before any timer or I/O callback of ours has
 * run, the holder's async context acquires again.
 */
import { ZkSession, type LockHandle } from '@zk-recipes/core';
import { testConnectString } from '@zk-recipes/testing';
import { track, untilQueue, within, type Outcome, type Tracked } from './adversary.js';
import { spawnStalledWaiter } from './stalledWaiter.js';

export interface ReentryAfterFreeze {
  /** The re-entry's outcome. */
  reentry: Outcome<LockHandle>;
  /** The first handle's signal, once the re-entry settled. */
  firstAborted: boolean;
  /** The other process's grant came while this process was frozen (what makes the check mean something). */
  otherGrantedWhileFrozen: boolean;
}

/** Blocks this process past its session, then calls `acquire` (from the holder's async context). */
export type FreezeThen = (acquire: () => Promise<LockHandle>) => Promise<Tracked<LockHandle>>;

export async function reentryAfterFreeze(o: {
  /** The other process's worker script (waits for the lock, reports its grant). */
  script: string;
  /** The lock directory (where both contenders' nodes are). */
  dir: string;
  /**
   * Takes the lock on `session`, then (in the code after its `await acquire()`: the holder's async
   * context, docs/mutex.md) hands `freezeThen` the lock object's `acquire` and returns both.
   */
  hold: (session: ZkSession, freezeThen: FreezeThen) => Promise<{ handle: LockHandle; reentry: Tracked<LockHandle> }>;
  sessionTimeoutMs: number;
}): Promise<ReentryAfterFreeze> {
  const connectString = testConnectString();
  const session = await ZkSession.connect({ connectString, sessionTimeoutMs: o.sessionTimeoutMs });
  const observer = await ZkSession.connect({ connectString, sessionTimeoutMs: 10_000 });
  const other = spawnStalledWaiter(o.script, connectString, o.dir, 10_000);
  let thawedAt = 0n;
  const freezeThen: FreezeThen = async (acquire) => {
    await within(other.next('session'), 30_000, 'the other process to connect');
    await untilQueue(observer, o.dir, 2);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.round(o.sessionTimeoutMs * 2.5));
    thawedAt = process.hrtime.bigint();
    return track(acquire());
  };
  try {
    const { handle, reentry } = await o.hold(session, freezeThen);
    const outcome = await within(reentry.settled, 10_000, 'the re-entry to settle');
    const granted = await within(other.next('granted', 'rejected'), 10_000, "the other process's grant");
    if (outcome.state === 'resolved') await outcome.value.release().catch(() => undefined);
    return {
      reentry: outcome,
      firstAborted: handle.signal.aborted,
      otherGrantedWhileFrozen: granted.type === 'granted' && granted.aborted === false && BigInt(granted.at!) < thawedAt,
    };
  } finally {
    await other.stop();
    await Promise.all([session.close(), observer.close()]);
  }
}
