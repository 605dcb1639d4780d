/**
 * What a long-lived session accumulates: every step of the read/write lock (acquire, downgrade,
 * release, a try that times out) follows the session's signal through the session's one fan-out,
 * so however many steps run, the signal keeps the same listeners. A step that added its own and
 * left it would grow the session's memory and make each later add and remove slower (an
 * EventTarget's are linear in its listeners); Node warns at eleven.
 */
import { getEventListeners } from 'node:events';
import { ZkSession } from '@zk-recipes/core';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { testConnectString, uniqueRoot } from '@zk-recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROUNDS = 50;
const root = uniqueRoot('rw-session-listeners');
let session: ZkSession;
let other: ZkSession;
beforeAll(async () => {
  session = await ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs: 10_000 });
  other = await ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs: 10_000 });
});
afterAll(async () => {
  await session?.close();
  await other?.close();
});

const sessionListeners = (): number => getEventListeners(session.sessionSignal, 'abort').length;

describe("the session's signal after many read/write lock steps", () => {
  it(`keeps the listeners it had after one round, over ${ROUNDS} rounds of write, downgrade and releases`, async () => {
    const lock = new InterProcessReadWriteLock(session, `${root}/downgrade`);
    const round = async (): Promise<void> => {
      const write = await lock.writeLock().acquire({ signal: new AbortController().signal, timeoutMs: 10_000 });
      const read = await lock.readLock().acquire({ signal: new AbortController().signal, timeoutMs: 10_000 }); // a downgrade
      await write.release();
      await read.release();
    };
    await round();
    const afterOne = sessionListeners();
    for (let i = 1; i < ROUNDS; i++) await round();
    expect(sessionListeners(), `listeners on the session's signal after ${ROUNDS} rounds (after one: ${afterOne})`).toBe(afterOne);
  });

  it(`keeps them over ${ROUNDS} tries that time out behind another session's writer`, async () => {
    const path = `${root}/tries`;
    const writer = await new InterProcessReadWriteLock(other, path).writeLock().acquire();
    try {
      const lock = new InterProcessReadWriteLock(session, path);
      const tryOnce = async (): Promise<void> => {
        expect(await lock.readLock().tryAcquire({ timeoutMs: 0 })).toBeNull();
        expect(await lock.writeLock().tryAcquire({ timeoutMs: 0 })).toBeNull();
      };
      await tryOnce();
      const afterOne = sessionListeners();
      for (let i = 1; i < ROUNDS; i++) await tryOnce();
      expect(sessionListeners(), `listeners on the session's signal after ${ROUNDS} tries (after one: ${afterOne})`).toBe(afterOne);
    } finally {
      await writer.release();
    }
  });
});
