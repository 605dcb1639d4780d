/**
 * A multi-lock's release that the server refuses for one member (docs/errors.md, "Releasing"):
 * the other members are released, the refused one keeps its node, the handle holds nothing from
 * the call on, and a release after the ACL is fixed gives back the rest.
 */
import { ZkSession, type MultiReleaseError, type ReleaseFailedError } from '@zk-recipes/core';
import { testConnectString, uniqueRoot } from '@zk-recipes/testing';
import { NO_DELETE_ACL as NO_DELETE, SECURE_ACL_STORED as SECURE_STORED, useAclCast } from '../../testing/test-support/aclCast.js';
import { describe, expect, it } from 'vitest';
import { InterProcessMultiLock, type MultiLockHandle } from '../src/index.js';

const root = uniqueRoot('multi-lock-acl');
const cast = useAclCast(root, testConnectString);

describe('InterProcessMultiLock release refused by the server', () => {
  it('releases the members it can, keeps the refused one\'s node, and finishes on a later release', async () => {
    const [a, b] = [`${root}/a`, `${root}/b`];
    const multi = InterProcessMultiLock.fromPaths(cast.app, [a, b]);
    const handle = await multi.acquire();
    const [memberA, memberB] = handle.members;
    await cast.ops.setACL(b, NO_DELETE);
    const err = (await handle.release().catch((e: unknown) => e)) as MultiReleaseError;
    expect(err).toMatchObject({ code: 'MULTI_RELEASE_FAILED' });
    expect(err.errors).toEqual([expect.objectContaining({ code: 'NO_AUTH' })]);
    // a is released (someone else may hold it now): the multi-lock is held no longer as a whole.
    expect(err).toMatchObject({ released: [a], stillHeld: [b] });
    expect(handle.held).toBe(false);
    expect(handle.signal.reason).toMatchObject({ code: 'RELEASED' });
    expect(multi.isAcquiredInThisProcess()).toBe(false);
    expect(multi.isOwnedByCurrentContext()).toBe(false);
    expect(memberA!.held).toBe(false);
    expect(memberB!.held).toBe(false);
    expect(await cast.anonymous.exists(memberA!.path)).toBeNull();
    expect(await cast.anonymous.exists(memberB!.path)).not.toBeNull();
    await cast.ops.setACL(b, SECURE_STORED);
    await handle.release();
    expect(handle.held).toBe(false);
    expect(multi.isAcquiredInThisProcess()).toBe(false);
    expect(await cast.anonymous.exists(memberB!.path)).toBeNull();
    await expect(handle.release()).rejects.toMatchObject({ code: 'NOT_OWNER' });
  });
});

describe('InterProcessMultiLock.withLock and await using, release refused', () => {
  it('withLock rejects with RELEASE_FAILED carrying the handle and what fn threw; the handle releases the rest', async () => {
    const [a, b] = [`${root}/with-a`, `${root}/with-b`];
    const multi = InterProcessMultiLock.fromPaths(cast.app, [a, b]);
    const thrown = new Error('the work failed');
    const err = (await multi
      .withLock(async () => {
        await cast.ops.setACL(b, NO_DELETE);
        throw thrown;
      })
      .catch((e: unknown) => e)) as ReleaseFailedError<MultiLockHandle>;
    expect(err).toMatchObject({ code: 'RELEASE_FAILED', fnFailed: true, error: expect.objectContaining({ code: 'MULTI_RELEASE_FAILED', stillHeld: [b] }) as unknown });
    expect(err.suppressed).toBe(thrown);
    expect(await cast.anonymous.exists(err.handle.paths[0]!)).toBeNull();
    expect(await cast.anonymous.exists(err.handle.paths[1]!)).not.toBeNull();
    await cast.ops.setACL(b, SECURE_STORED);
    await err.handle.release();
    expect(await cast.anonymous.exists(err.handle.paths[1]!)).toBeNull();
  });

  it('await using rejects with RELEASE_FAILED carrying the handle', async () => {
    const [a, b] = [`${root}/using-a`, `${root}/using-b`];
    const multi = InterProcessMultiLock.fromPaths(cast.app, [a, b]);
    const block = async (): Promise<void> => {
      await using _held = await multi.acquire();
      await cast.ops.setACL(a, NO_DELETE);
    };
    const err = (await block().catch((e: unknown) => e)) as ReleaseFailedError<MultiLockHandle>;
    expect(err).toMatchObject({ code: 'RELEASE_FAILED', error: expect.objectContaining({ released: [b], stillHeld: [a] }) as unknown });
    await cast.ops.setACL(a, SECURE_STORED);
    await err.handle.release();
    expect(multi.isAcquiredInThisProcess()).toBe(false);
  });
});

describe('InterProcessMultiLock with a member directory someone else left open', () => {
  it('is refused with INSECURE_ACL and leaves no node in any member', async () => {
    const [a, b] = [`${root}/a-secure`, `${root}/b-open`]; // taken in this order
    await cast.anonymous.mkdirp(b, 'persistent');
    const multi = InterProcessMultiLock.fromPaths(cast.app, [a, b]);
    await expect(multi.acquire({ timeoutMs: 10_000 })).rejects.toMatchObject({ code: 'INSECURE_ACL', path: b });
    expect((await cast.anonymous.getChildren(b)).children).toEqual([]);
    expect(await cast.anonymous.exists(a).then(async (stat) => (stat === null ? [] : (await cast.anonymous.getChildren(a)).children))).toEqual([]);
    expect(multi.isAcquiredInThisProcess()).toBe(false);
  });
});
