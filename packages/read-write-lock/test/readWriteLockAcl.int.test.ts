/**
 * A read or write lock's release that the server refuses (docs/errors.md, "Releasing"): it rejects
 * with RELEASE_FAILED carrying the handle, which holds nothing from the call on while its node stays
 * ours, and releases once the ACL is fixed.
 */
import { testConnectString, uniqueRoot } from '@zk-recipes/testing';
import { NO_DELETE_ACL as NO_DELETE, SECURE_ACL_STORED as SECURE_STORED, useAclCast } from '../../testing/test-support/aclCast.js';
import { describe, expect, it } from 'vitest';
import { InterProcessReadWriteLock } from '../src/index.js';

const root = uniqueRoot('rwlock-acl');
const cast = useAclCast(root, testConnectString);

describe.each(['read', 'write'] as const)('%s lock release refused by the server', (kind) => {
  it('rejects with RELEASE_FAILED, the handle not held and its node still there; releasing again works once the ACL is fixed', async () => {
    const path = `${root}/${kind}`;
    const rw = new InterProcessReadWriteLock(cast.app, path);
    const lock = kind === 'read' ? rw.readLock() : rw.writeLock();
    const handle = await lock.acquire();
    await cast.ops.setACL(path, NO_DELETE);
    await expect(handle.release()).rejects.toMatchObject({ code: 'RELEASE_FAILED', handle, error: expect.objectContaining({ code: 'NO_AUTH' }) as unknown });
    expect(handle.held).toBe(false);
    expect(lock.isOwnedByCurrentContext()).toBe(false);
    expect(lock.isAcquiredInThisProcess()).toBe(true);
    expect(await cast.anonymous.exists(handle.path)).not.toBeNull();
    await cast.ops.setACL(path, SECURE_STORED);
    await handle.release();
    expect(lock.isAcquiredInThisProcess()).toBe(false);
    expect(await cast.anonymous.exists(handle.path)).toBeNull();
  });
});

describe.each(['read', 'write'] as const)('%s lock in a directory someone else left open', (kind) => {
  it('is refused with INSECURE_ACL naming the directory, and leaves no node behind', async () => {
    const path = `${root}/open-${kind}`;
    await cast.anonymous.mkdirp(path, 'persistent');
    const rw = new InterProcessReadWriteLock(cast.app, path);
    const lock = kind === 'read' ? rw.readLock() : rw.writeLock();
    await expect(lock.acquire({ timeoutMs: 10_000 })).rejects.toMatchObject({ code: 'INSECURE_ACL', path, acl: [{ perms: 31, scheme: 'world', id: 'anyone' }] });
    expect((await cast.anonymous.getChildren(path)).children).toEqual([]);
    expect(lock.isAcquiredInThisProcess()).toBe(false);
  });
});
