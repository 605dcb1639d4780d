/**
 * A multi-lock's release that the server refuses for one member (docs/errors.md, "Releasing"):
 * the other members are released, the refused one and the handle stay held, and a release after
 * the ACL is fixed gives back the rest.
 */
import { createHash } from 'node:crypto';
import { ZkSession, type AclEntry, type MultiReleaseError } from '@zk-recipes/core';
import { testConnectString, uniqueRoot } from '@zk-recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InterProcessMultiLock } from '../src/index.js';

const APP = 'app:secret';
const OPS = 'ops:secret';
const digestOf = (credentials: string): string => `${credentials.split(':')[0]}:${createHash('sha1').update(credentials).digest('base64')}`;
const entry = (perms: number, scheme: string, id: string): AclEntry => ({ perms, scheme, id });
const SECURE: AclEntry[] = [entry(31, 'auth', ''), entry(31, 'digest', digestOf(OPS)), entry(1, 'world', 'anyone')];
const SECURE_STORED: AclEntry[] = [entry(31, 'digest', digestOf(APP)), entry(31, 'digest', digestOf(OPS)), entry(1, 'world', 'anyone')];

const root = uniqueRoot('multi-lock-acl');
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

describe('InterProcessMultiLock release refused by the server', () => {
  it('releases the members it can, keeps the refused one and the handle held, and finishes on a later release', async () => {
    const [a, b] = [`${root}/a`, `${root}/b`];
    const multi = InterProcessMultiLock.fromPaths(app, [a, b]);
    const handle = await multi.acquire();
    const [memberA, memberB] = handle.members;
    await ops.setACL(b, [entry(1 | 4, 'digest', digestOf(APP)), ...SECURE_STORED.slice(1)]);
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
