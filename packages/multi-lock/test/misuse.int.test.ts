/**
 * The recipes with the inputs people get wrong: constructors throw at
 * once, methods that return a promise reject (never throw), every refusal is INVALID_ARGUMENT with
 * a message saying why, and a refused acquisition leaves no node behind.
 */
import { ZkSession } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { testConnectString, uniqueRoot } from '@zk-recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InterProcessMultiLock } from '../src/index.js';

const root = uniqueRoot('misuse');
let session: ZkSession;
const states: string[] = [];

beforeAll(async () => {
  session = await ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs: 4_000 });
  session.on('state', (state) => states.push(state));
});
afterAll(async () => {
  await session?.close();
});

const refusal = (message: RegExp) => expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(message) });

/** Calls `call`; a synchronous throw fails the test (the rule: promise-returning methods reject). */
function rejectionOf(call: () => Promise<unknown>): Promise<unknown> {
  let promise: Promise<unknown>;
  try {
    promise = call();
  } catch (err) {
    throw new Error(`threw synchronously instead of rejecting: ${String(err)}`);
  }
  return promise.then(
    () => {
      throw new Error('resolved');
    },
    (err: unknown) => err,
  );
}

describe('constructors refuse at once', () => {
  it.each([
    ['a mutex without a session', () => new InterProcessMutex(null as never, `${root}/a`), /session must be a ZkSession/],
    ['a read/write lock with a string for a session', () => new InterProcessReadWriteLock('zk' as never, `${root}/a`), /session must be a ZkSession/],
    ['a multi-lock whose session is undefined', () => InterProcessMultiLock.fromPaths(undefined as never, [`${root}/a`]), /session must be a ZkSession/],
    ['a lock at the root', () => new InterProcessMutex(session, '/'), /must not be the root/],
    ["a lock in ZooKeeper's own tree", () => new InterProcessReadWriteLock(session, '/zookeeper/locks'), /ZooKeeper's own tree/],
    ['a lock at /zookeeper itself', () => new InterProcessMutex(session, '/zookeeper'), /ZooKeeper's own tree/],
  ])('%s: INVALID_ARGUMENT', (_what, build, message) => {
    expect(build).toThrow(refusal(message));
  });
});

describe('methods that return a promise reject, never throw', () => {
  const mutex = () => new InterProcessMutex(session, `${root}/m`);
  const rw = () => new InterProcessReadWriteLock(session, `${root}/rw`);
  const multi = () => InterProcessMultiLock.fromPaths(session, [`${root}/x`, `${root}/y`]);
  it.each([
    ['mutex acquire, a timeout no timer can hold', () => mutex().acquire({ timeoutMs: 2 ** 31 }), /timeoutMs must be at most 2147483647/],
    ['mutex tryAcquire, an unknown option', () => mutex().tryAcquire({ timoutMs: 5 } as never), /Unrecognized key/],
    ['read lock acquire, a negative timeout', () => rw().readLock().acquire({ timeoutMs: -1 }), /timeoutMs/],
    ['write lock acquire, a timeout no timer can hold', () => rw().writeLock().acquire({ timeoutMs: 3e9 }), /timeoutMs must be at most/],
    ['multi-lock acquire, an unknown option', () => multi().acquire({ wait: true } as never), /Unrecognized key/],
    ['multi-lock tryAcquire, a timeout no timer can hold', () => multi().tryAcquire({ timeoutMs: 2 ** 31 }), /timeoutMs must be at most/],
  ])('%s: rejects with INVALID_ARGUMENT', async (_what, call, message) => {
    expect(await rejectionOf(call)).toEqual(refusal(message));
  });
});

describe('oversized requests never reach the wire', () => {
  it.each([
    ['node data of 2 MB', () => new InterProcessMutex(session, `${root}/big-data`, { data: Buffer.alloc(2 * 1024 * 1024) }), `${root}/big-data`],
    ['a lock path of 1.1 MB', () => new InterProcessMutex(session, `${root}/${'p'.repeat(1_100_000)}`), undefined],
  ])('a mutex with %s: acquire rejects with INVALID_ARGUMENT, nothing is left, the session is not disturbed', async (_what, build, dir) => {
    const before = states.length;
    expect(await rejectionOf(() => build().acquire())).toEqual(refusal(/over the servers' limit/));
    expect(states.slice(before)).toEqual([]);
    if (dir !== undefined) {
      const left = await session.getChildren(dir).then(
        (r) => r.children,
        () => [],
      );
      expect(left).toEqual([]);
    }
  });
});
