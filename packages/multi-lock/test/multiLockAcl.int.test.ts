/**
 * A multi-lock's release that the server refuses for one member (docs/errors.md, "Releasing"):
 * the other members are released, the refused one and the handle stay held, and a release after
 * the ACL is fixed gives back the rest.
 */
import { ZkSession, type MultiReleaseError } from '@zk-recipes/core';
import { testConnectString, uniqueRoot } from '@zk-recipes/testing';
import { type AclCast, connectAclCast, NO_DELETE_ACL as NO_DELETE, SECURE_ACL_STORED as SECURE_STORED } from '../../testing/test-support/aclCast.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InterProcessMultiLock } from '../src/index.js';

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
    expect(handle.held).toBe(true);
    expect(multi.isAcquiredInThisProcess()).toBe(true);
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
