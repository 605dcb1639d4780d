/**
 * A read or write lock's release that the server refuses (docs/errors.md, "Releasing"): the handle
 * stays held and releases once the ACL is fixed.
 */
import { createHash } from 'node:crypto';
import { ZkSession, type AclEntry } from '@zk-recipes/core';
import { testConnectString, uniqueRoot } from '@zk-recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InterProcessReadWriteLock } from '../src/index.js';

const APP = 'app:secret';
const OPS = 'ops:secret';
const digestOf = (credentials: string): string => `${credentials.split(':')[0]}:${createHash('sha1').update(credentials).digest('base64')}`;
const entry = (perms: number, scheme: string, id: string): AclEntry => ({ perms, scheme, id });
const SECURE: AclEntry[] = [entry(31, 'auth', ''), entry(31, 'digest', digestOf(OPS)), entry(1, 'world', 'anyone')];
const SECURE_STORED: AclEntry[] = [entry(31, 'digest', digestOf(APP)), entry(31, 'digest', digestOf(OPS)), entry(1, 'world', 'anyone')];

const root = uniqueRoot('rwlock-acl');
const sessions: ZkSession[] = [];
let anonymous: ZkSession;
let ops: ZkSession;
let app: ZkSession;

beforeAll(async () => {
  const connect = async (options: Omit<Parameters<typeof ZkSession.connect>[0], 'connectString'> = {}) => {
    const session = await ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs: 4000, ...options });
    sessions.push(session);
    return session;
  };
  anonymous = await connect();
  ops = await connect({ auth: [{ scheme: 'digest', credentials: OPS }] });
  app = await connect({ auth: [{ scheme: 'digest', credentials: APP }], acl: SECURE });
  await anonymous.mkdirp(root, 'persistent'); // open: the shared parents stay usable by other tests
});
afterAll(async () => {
  await Promise.all(sessions.map((s) => s.close()));
});

describe.each(['read', 'write'] as const)('%s lock release refused by the server', (kind) => {
  it('keeps the handle held and releases once the ACL is fixed', async () => {
    const path = `${root}/${kind}`;
    const rw = new InterProcessReadWriteLock(app, path);
    const lock = kind === 'read' ? rw.readLock() : rw.writeLock();
    const handle = await lock.acquire();
    await ops.setACL(path, [entry(1 | 4, 'digest', digestOf(APP)), ...SECURE_STORED.slice(1)]);
    await expect(handle.release()).rejects.toMatchObject({ code: 'NO_AUTH' });
    expect(handle.held).toBe(true);
    expect(lock.isOwnedByCurrentContext()).toBe(true);
    await ops.setACL(path, SECURE_STORED);
    await handle.release();
    expect(handle.held).toBe(false);
    expect(lock.isAcquiredInThisProcess()).toBe(false);
    expect(await anonymous.exists(handle.path)).toBeNull();
  });
});
