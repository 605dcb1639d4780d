/**
 * A multi-lock's release that the server refuses for one member (docs/errors.md, "Releasing"):
 * the other members are released, the refused one and the handle stay held, and a release after
 * the ACL is fixed gives back the rest.
 */
import { ZkSession, type MultiReleaseError, type ReleaseFailedError } from '@zk-recipes/core';
import { testConnectString, uniqueRoot } from '@zk-recipes/testing';
import { type AclCast, connectAclCast, NO_DELETE_ACL as NO_DELETE, SECURE_ACL_STORED as SECURE_STORED } from '../../testing/test-support/aclCast.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InterProcessMultiLock, type MultiLockHandle } from '../src/index.js';

const root = uniqueRoot('multi-lock-acl');
let anonymous: ZkSession;
let ops: ZkSession;
let app: ZkSession;
let cast: AclCast | undefined;

beforeAll(async () => {
  cast = await connectAclCast(testConnectString(), root);
  ({ anonymous, ops, app } = cast);
});
afterAll(() => cast?.close());

describe('InterProcessMultiLock release refused by the server', () => {
  it('releases the members it can, keeps the refused one and the handle held, and finishes on a later release', async () => {
    const [a, b] = [`${root}/a`, `${root}/b`];
    const multi = InterProcessMultiLock.fromPaths(app, [a, b]);
    const handle = await multi.acquire();
    const [memberA, memberB] = handle.members;
    await ops.setACL(b, NO_DELETE);
    const err = (await handle.release().catch((e: unknown) => e)) as MultiReleaseError;
    expect(err).toMatchObject({ code: 'MULTI_RELEASE_FAILED' });
    expect(err.errors).toEqual([expect.objectContaining({ code: 'NO_AUTH' })]);
    // a is released (someone else may hold it now): the multi-lock is held no longer as a whole.
    expect(err).toMatchObject({ released: [a], stillHeld: [b] });
    expect(handle.held).toBe(false);
    expect(handle.signal.aborted).toBe(true);
    expect(handle.signal.reason).toBe(err);
    expect(multi.isAcquiredInThisProcess()).toBe(false);
    expect(multi.isOwnedByCurrentContext()).toBe(false);
    expect(memberA!.held).toBe(false);
    expect(memberB!.held).toBe(true);
    expect(await anonymous.exists(memberA!.path)).toBeNull();
    expect(await anonymous.exists(memberB!.path)).not.toBeNull();
    await ops.setACL(b, SECURE_STORED);
    await handle.release();
    expect(handle.held).toBe(false);
    expect(memberB!.held).toBe(false);
    expect(multi.isAcquiredInThisProcess()).toBe(false);
    expect(await anonymous.exists(memberB!.path)).toBeNull();
    await expect(handle.release()).rejects.toMatchObject({ code: 'NOT_OWNER' });
  });
});

describe('InterProcessMultiLock.withLock and await using, release refused', () => {
  it('withLock rejects with RELEASE_FAILED carrying the handle and what fn threw; the handle releases the rest', async () => {
    const [a, b] = [`${root}/with-a`, `${root}/with-b`];
    const multi = InterProcessMultiLock.fromPaths(app, [a, b]);
    const thrown = new Error('the work failed');
    const err = (await multi
      .withLock(async () => {
        await ops.setACL(b, NO_DELETE);
        throw thrown;
      })
      .catch((e: unknown) => e)) as ReleaseFailedError<MultiLockHandle>;
    expect(err).toMatchObject({ code: 'RELEASE_FAILED', fnFailed: true, error: expect.objectContaining({ code: 'MULTI_RELEASE_FAILED', stillHeld: [b] }) as unknown });
    expect(err.suppressed).toBe(thrown);
    expect(err.handle.members.map((m) => m.held)).toEqual([false, true]);
    await ops.setACL(b, SECURE_STORED);
    await err.handle.release();
    expect(await anonymous.exists(err.handle.paths[1]!)).toBeNull();
  });

  it('await using rejects with RELEASE_FAILED carrying the handle', async () => {
    const [a, b] = [`${root}/using-a`, `${root}/using-b`];
    const multi = InterProcessMultiLock.fromPaths(app, [a, b]);
    const block = async (): Promise<void> => {
      await using _held = await multi.acquire();
      await ops.setACL(a, NO_DELETE);
    };
    const err = (await block().catch((e: unknown) => e)) as ReleaseFailedError<MultiLockHandle>;
    expect(err).toMatchObject({ code: 'RELEASE_FAILED', error: expect.objectContaining({ released: [b], stillHeld: [a] }) as unknown });
    await ops.setACL(a, SECURE_STORED);
    await err.handle.release();
    expect(multi.isAcquiredInThisProcess()).toBe(false);
  });
});

describe('InterProcessMultiLock with a member directory someone else left open', () => {
  it('is refused with INSECURE_ACL and leaves no node in any member', async () => {
    const [a, b] = [`${root}/a-secure`, `${root}/b-open`]; // taken in this order
    await anonymous.mkdirp(b, 'persistent');
    const multi = InterProcessMultiLock.fromPaths(app, [a, b]);
    await expect(multi.acquire({ timeoutMs: 10_000 })).rejects.toMatchObject({ code: 'INSECURE_ACL', path: b });
    expect((await anonymous.getChildren(b)).children).toEqual([]);
    expect(await anonymous.exists(a).then(async (stat) => (stat === null ? [] : (await anonymous.getChildren(a)).children))).toEqual([]);
    expect(multi.isAcquiredInThisProcess()).toBe(false);
  });
});
