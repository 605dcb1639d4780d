/**
 * ACLs that hold, for semaphores (docs/security.md, "ACLs"): the lease directory is the only
 * container a restrictive ACL leaves (the `curator` layout's parent is persistent), an open lease
 * directory is refused, and a lease whose release the server refuses stays held.
 */
import { ZkSession, type AclEntry } from '@zk-recipes/core';
import { waitUntilGone } from '@zk-recipes/core/recipe-kit';
import { reaperRound, testConnectString, TestingServer, uniqueRoot } from '@zk-recipes/testing';
import { APP_CREDENTIALS as APP, NO_DELETE_ACL as NO_DELETE, OPS_CREDENTIALS as OPS, SECURE_ACL as SECURE, SECURE_ACL_STORED as SECURE_STORED } from '../../testing/test-support/aclCast.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCount, InterProcessSemaphore, SharedCount } from '../src/index.js';

const root = uniqueRoot('semaphore-acl');
const sessions: ZkSession[] = [];
let anonymous: ZkSession;
let ops: ZkSession;
let app: ZkSession;
/** A server whose container reaper runs every 100 ms: a client cannot tell a container by its stat. */
let reaping: TestingServer;
let anonymousThere: ZkSession;
let appThere: ZkSession;
/** Reads ACLs: the server shows digest hashes only to a session with ADMIN on the node (else `user:x`). */
let opsThere: ZkSession;

async function connect(auth?: string, acl?: AclEntry[], connectString = testConnectString()): Promise<ZkSession> {
  const session = await ZkSession.connect({
    connectString,
    sessionTimeoutMs: 4000,
    ...(auth === undefined ? {} : { auth: [{ scheme: 'digest' as const, credentials: auth }] }),
    ...(acl === undefined ? {} : { acl }),
  });
  sessions.push(session);
  return session;
}

beforeAll(async () => {
  anonymous = await connect();
  ops = await connect(OPS);
  app = await connect(APP, SECURE);
  await anonymous.mkdirp(root, 'persistent'); // open: the shared parents stay usable by other tests
  reaping = await TestingServer.start({ systemProperties: { 'znode.container.checkIntervalMs': '100' } });
  anonymousThere = await connect(undefined, undefined, reaping.connectString);
  appThere = await connect(APP, SECURE, reaping.connectString);
  opsThere = await connect(OPS, undefined, reaping.connectString);
  await anonymousThere.mkdirp(root, 'persistent');
});
afterAll(async () => {
  await Promise.all(sessions.map((s) => s.close()));
  await reaping?.stop();
});

describe.each(['queue', 'curator'] as const)('%s layout with a restrictive ACL', (layout) => {
  const leasesOf = (path: string): string => (layout === 'queue' ? path : `${path}/leases`);

  it('only the directories that hold contenders are containers; the rest is persistent with the ACL', async () => {
    const path = `${root}/${layout}-tree/sem`;
    await (await new InterProcessSemaphore(appThere, path, { maxLeases: 2, layout }).acquire()).release();
    const containers = layout === 'queue' ? [path] : [`${path}/leases`, `${path}/locks`];
    for (const dir of containers) expect(await waitUntilGone(anonymousThere, dir, AbortSignal.timeout(30_000))).toBe('gone');
    await reaperRound(anonymousThere, root); // a round that began after they went would take empty container parents
    const persistent = layout === 'queue' ? [`${root}/${layout}-tree`] : [`${root}/${layout}-tree`, path];
    for (const dir of persistent) expect((await opsThere.getACL(dir)).acl).toEqual(SECURE_STORED);
  });

  it('an open lease directory is refused with INSECURE_ACL and keeps no node of ours', async () => {
    const path = `${root}/${layout}-open`;
    await anonymous.mkdirp(leasesOf(path), 'persistent');
    await expect(new InterProcessSemaphore(app, path, { maxLeases: 2, layout }).acquire({ timeoutMs: 10_000 })).rejects.toMatchObject({
      code: 'INSECURE_ACL',
      path: leasesOf(path),
    });
    expect((await anonymous.getChildren(leasesOf(path))).children).toEqual([]);
  });

  it("a lease whose data is over the servers' limit is refused before any directory is created", async () => {
    const path = `${root}/${layout}-oversized/sem`;
    const semaphore = new InterProcessSemaphore(app, path, { maxLeases: 2, layout, data: Buffer.alloc(1_100_000) });
    await expect(semaphore.acquire({ timeoutMs: 10_000 })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/over the servers' limit of 1048575.*no lock directory created/) as unknown,
    });
    // Nothing made for it: with our ACL the parents would be persistent, and stay.
    expect(await anonymous.exists(`${root}/${layout}-oversized`)).toBeNull();
  });

  it('a release the server refuses rejects with RELEASE_FAILED carrying the lease, not held from the call on; after the ACL is fixed, releasing it again works', async () => {
    const path = `${root}/${layout}-refused`;
    const semaphore = new InterProcessSemaphore(app, path, { maxLeases: 3, layout });
    const leases = await semaphore.acquireMany(2);
    await ops.setACL(leasesOf(path), NO_DELETE);
    // The queue layout's two leases share one node: the first release deletes nothing.
    if (layout === 'queue') await leases[0]!.release();
    const last = leases[layout === 'queue' ? 1 : 0]!;
    await expect(last.release()).rejects.toMatchObject({ code: 'RELEASE_FAILED', handle: last, error: expect.objectContaining({ code: 'NO_AUTH' }) as unknown });
    expect(last.held).toBe(false);
    expect(last.signal.reason).toMatchObject({ code: 'RELEASED' });
    expect(await anonymous.exists(last.path)).not.toBeNull();
    await ops.setACL(leasesOf(path), SECURE_STORED);
    await last.release();
    expect(await anonymous.exists(last.path)).toBeNull();
    await expect(last.release()).rejects.toMatchObject({ code: 'NOT_OWNER' });
    await leases.release(); // the curator layout's other lease
  });
});

describe('a SharedCount node someone else made', () => {
  const anyoneWrites = [...SECURE_STORED.slice(0, 2), { perms: 1 | 2, scheme: 'world', id: 'anyone' }];
  it('is refused with INSECURE_ACL when it lets someone else write it: anyone could raise the count', async () => {
    const path = `${root}/count-open`;
    await anonymous.create(path, encodeCount(2), { acl: anyoneWrites });
    const count = new SharedCount(app, path, { seedValue: 2 });
    await expect(count.start()).rejects.toMatchObject({ code: 'INSECURE_ACL', path, acl: anyoneWrites });
    count.close();
    // What it would have let through: a stranger raises the limit of every semaphore using it.
    await anonymous.setData(path, encodeCount(1000));
  });

  it('is accepted with our ACL, once per start; with aclCheck off, or when we create it, nothing is checked', async () => {
    const path = `${root}/count-ours`;
    await ops.create(path, encodeCount(3), { acl: SECURE_STORED });
    const count = new SharedCount(app, path, { seedValue: 3 });
    await count.start();
    expect(count.getCount()).toBe(3);
    count.close();
    const open = `${root}/count-open-unchecked`;
    await anonymous.create(open, encodeCount(2), { acl: anyoneWrites });
    const unchecked = await ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs: 4000, auth: [{ scheme: 'digest', credentials: APP }], acl: SECURE, aclCheck: 'off' });
    sessions.push(unchecked);
    const accepted = new SharedCount(unchecked, open, { seedValue: 2 });
    await accepted.start();
    accepted.close();
    const created = new SharedCount(app, `${root}/count-created`, { seedValue: 5 });
    await created.start();
    expect((await ops.getACL(created.path)).acl).toEqual(SECURE_STORED);
    created.close();
  });
});
