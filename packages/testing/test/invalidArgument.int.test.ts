/**
 * `INVALID_ARGUMENT` has one shape wherever it comes from (docs/errors.md, "INVALID_ARGUMENT"):
 * an `InvalidArgumentError` whose `cause` is a frozen array of plain `{ path, message }` issues, one
 * per problem found, never a validation library's objects. Checked over `ZkSession.connect()`, a
 * retry policy, `acquire()` and every recipe's constructor, against a real server.
 */
import { exponentialBackoff, InvalidArgumentError, isZkError, ZkSession } from '@zk-recipes/core';
import { LeaderLatch, LeaderSelector } from '@zk-recipes/leader';
import { InterProcessMultiLock } from '@zk-recipes/multi-lock';
import { InterProcessMutex, InterProcessSemaphoreMutex } from '@zk-recipes/mutex';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { InterProcessSemaphore, SharedCount } from '@zk-recipes/semaphore';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConnectString } from '../src/testConnectString.js';
import { uniqueRoot } from '../src/uniqueRoot.js';

const root = uniqueRoot('invalid-argument');
let session: ZkSession;

beforeAll(async () => {
  session = await ZkSession.connect({ connectString: testConnectString() });
});

afterAll(async () => {
  await session?.close();
});

/** What `work` threw or rejected with. */
async function failureOf(work: () => unknown): Promise<unknown> {
  try {
    await work();
  } catch (err) {
    return err;
  }
  throw new Error('expected INVALID_ARGUMENT, got no error');
}

/** `err` is INVALID_ARGUMENT with `cause` a frozen array of plain issues at exactly `paths`. */
function expectIssues(err: unknown, paths: PropertyKey[][]): void {
  expect(isZkError(err, 'INVALID_ARGUMENT'), String(err)).toBe(true);
  expect(err).toBeInstanceOf(InvalidArgumentError);
  const cause = (err as InvalidArgumentError).cause;
  expect(Array.isArray(cause)).toBe(true);
  expect(Object.isFrozen(cause)).toBe(true);
  for (const issue of cause) {
    expect(Object.getPrototypeOf(issue)).toBe(Object.prototype);
    expect(Object.keys(issue)).toEqual(['path', 'message']);
    expect(Array.isArray(issue.path)).toBe(true);
    expect(typeof issue.message).toBe('string');
    expect(issue.message).not.toBe('');
  }
  expect(cause.map((issue) => issue.path)).toEqual(paths);
  // Plain data: it survives JSON (a log line, a worker message) as it is.
  expect(JSON.parse(JSON.stringify(cause))).toEqual(cause.map((issue) => ({ path: [...issue.path], message: issue.message })));
}

describe('INVALID_ARGUMENT: cause is plain { path, message } issues, one per problem', () => {
  it('ZkSession.connect(): every bad option', async () => {
    const err = await failureOf(() => ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs: -1, label: '' }));
    expectIssues(err, [['sessionTimeoutMs'], ['label']]);
  });

  it('a retry policy, and a connect() given a bad one', async () => {
    expectIssues(await failureOf(() => exponentialBackoff({ baseSleepMs: -1, maxRetries: 3 })), [['baseSleepMs']]);
    expectIssues(await failureOf(() => ZkSession.connect({ connectString: testConnectString(), retryPolicy: 'often' as never })), [['retryPolicy']]);
  });

  it('acquire(), tryAcquire() and withLock(): bad acquire options', async () => {
    const mutex = new InterProcessMutex(session, `${root}/acquire`);
    expectIssues(await failureOf(() => mutex.acquire({ timeoutMs: -5 })), [['timeoutMs']]);
    expectIssues(await failureOf(() => mutex.tryAcquire({ timeoutMs: 'soon' as never })), [['timeoutMs']]);
    expectIssues(await failureOf(() => mutex.withLock(async () => undefined, { signal: 'stop' as never })), [['signal']]);
  });

  it.each([
    ['InterProcessMutex', () => new InterProcessMutex(session, `${root}/m`, { bogus: 1 } as never), [[]]],
    ['InterProcessSemaphoreMutex', () => new InterProcessSemaphoreMutex(session, `${root}/sm`, { data: 7 } as never), [['data']]],
    ['InterProcessReadWriteLock', () => new InterProcessReadWriteLock(session, `${root}/rw`, { naming: 'java' } as never), [['naming']]],
    ['InterProcessSemaphore', () => new InterProcessSemaphore(session, `${root}/s`, { maxLeases: 0 }), [['maxLeases']]],
    ['SharedCount', () => new SharedCount(session, `${root}/c`, { seedValue: 1.5 }), [['seedValue']]],
    ['InterProcessMultiLock', () => new InterProcessMultiLock([new InterProcessMutex(session, `${root}/a`)], { order: 'random' } as never), [['order']]],
    ['LeaderLatch', () => new LeaderLatch(session, `${root}/l`, { closeMode: 'loud' } as never), [['closeMode']]],
    ['LeaderSelector', () => new LeaderSelector(session, `${root}/ls`, { autoRequeue: 'yes' } as never), [['autoRequeue']]],
  ] as const)('new %s(): a bad option', async (_name, construct, paths) => {
    expectIssues(await failureOf(construct), paths.map((path) => [...path]));
  });

  it('checks that are not a schema give the same shape: one issue about the argument as a whole', async () => {
    const relative = await failureOf(() => new InterProcessMutex(session, 'locks/relative'));
    expectIssues(relative, [[]]);
    expect((relative as InvalidArgumentError).cause[0]!.message).toBe((relative as InvalidArgumentError).message);
    expectIssues(await failureOf(() => new InterProcessMutex({} as never, `${root}/not-a-session`)), [[]]);
  });
});
