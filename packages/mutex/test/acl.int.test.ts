/**
 * ACLs that hold (docs/security.md, "ACLs"): each hole an anonymous client could use against a
 * digest-protected mutex, reproduced where it still can be (the open default, `aclCheck: 'off'`)
 * and shown closed.
 */
import { isZkError, ZkSession, type LockHandle, type ReleaseFailedError, type ZkSessionOptionsInput } from '@zk-recipes/core';
import { waitUntilGone } from '@zk-recipes/core/recipe-kit';
import { InterProcessMutex, MutexSet } from '@zk-recipes/mutex';
import { aclEntry, childrenOf, digestIdOf, FaultProxy, reaperRound, testConnectString, TestingServer, uniqueRoot, ZK_OPCODES } from '@zk-recipes/testing';
import { APP_CREDENTIALS as APP, NO_DELETE_ACL as NO_DELETE, OPS_CREDENTIALS as OPS, SECURE_ACL as SECURE, SECURE_ACL_STORED as SECURE_STORED } from '../../testing/test-support/aclCast.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = uniqueRoot('acl');
const sessions: ZkSession[] = [];

type Options = Partial<ZkSessionOptionsInput>;

async function connect(options: Options = {}): Promise<ZkSession> {
  const session = await ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs: 4000, ...options });
  sessions.push(session);
  return session;
}
const app = (options: Options = {}) => connect({ auth: [{ scheme: 'digest', credentials: APP }], acl: SECURE, ...options });

let anonymous: ZkSession;
let ops: ZkSession;
beforeAll(async () => {
  anonymous = await connect();
  ops = await connect({ auth: [{ scheme: 'digest', credentials: OPS }] });
  // An open, persistent root of our own: the tests' shared parents stay open for other tests.
  await anonymous.mkdirp(root, 'persistent');
});
afterAll(async () => {
  await Promise.all(sessions.map((s) => s.close()));
});

describe('a lock directory someone else left open', () => {
  it('with aclCheck off (the old behaviour): an anonymous client deletes the holder and queues ahead; the next acquirer times out', async () => {
    const dir = `${root}/open-off/lock`;
    await anonymous.mkdirp(dir, 'persistent');
    const unchecked = await app({ aclCheck: 'off' });
    const holder = await new InterProcessMutex(unchecked, dir).acquire();
    await anonymous.delete(holder.path);
    await anonymous.create(`${dir}/evil-`, null, { mode: 'persistent_sequential' });
    await expect(new InterProcessMutex(await app({ aclCheck: 'off' }), dir).acquire({ timeoutMs: 1500 })).rejects.toMatchObject({ code: 'LOCK_TIMEOUT' });
    expect(holder.signal.aborted).toBe(true);
  });

  it('is refused with INSECURE_ACL naming the path and the ACL found, and leaves no node behind', async () => {
    const dir = `${root}/open/lock`;
    await anonymous.mkdirp(dir, 'persistent');
    const err: unknown = await new InterProcessMutex(await app(), dir).acquire({ timeoutMs: 10_000 }).catch((e: unknown) => e);
    expect(isZkError(err, 'INSECURE_ACL')).toBe(true);
    expect(err).toMatchObject({ path: dir, acl: [aclEntry(31, 'world', 'anyone')] });
    expect((err as Error).message).toContain('world:anyone=cdrwa');
    expect(await childrenOf(anonymous, dir)).toEqual([]);
  });

  it('CREATE for anyone, or everything for a stranger, is refused too; READ for anyone is fine', async () => {
    const stranger = aclEntry(31, 'digest', digestIdOf('mallory:x'));
    for (const [name, acl, refused] of [
      ['create', [...SECURE_STORED.slice(0, 2), aclEntry(5, 'world', 'anyone')], true],
      ['stranger', [...SECURE_STORED, stranger], true],
      ['read', SECURE_STORED, false],
    ] as const) {
      const dir = `${root}/acl-${name}/lock`;
      await ops.mkdirp(dir, 'persistent');
      await ops.setACL(dir, acl);
      const acquired = new InterProcessMutex(await app(), dir).acquire({ timeoutMs: 10_000 });
      if (refused) {
        await expect(acquired).rejects.toMatchObject({ code: 'INSECURE_ACL', path: dir });
      } else {
        await (await acquired).release();
      }
    }
  });

  it('whose ACL this session sees masked (no ADMIN) is refused: a masked digest id may be anyone who claims the user name', async () => {
    const dir = `${root}/masked/lock`;
    // Digest identities are self-asserted: anyone may authenticate as app:evil. Without ADMIN the
    // server shows the app both its own id and that one as app:x.
    const evil = aclEntry(31, 'digest', digestIdOf('app:evil'));
    await ops.mkdirp(dir, 'persistent');
    await ops.setACL(dir, [aclEntry(1 | 4 | 8, 'digest', digestIdOf(APP)), evil, SECURE_STORED[1]!]);
    const session = await app();
    expect((await session.getACL(dir)).acl).toContainEqual(aclEntry(31, 'digest', 'app:x'));
    const err: unknown = await new InterProcessMutex(session, dir).acquire({ timeoutMs: 10_000 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'INSECURE_ACL', path: dir });
    expect((err as Error).message).toMatch(/could not be verified because this session lacks ADMIN on the directory.*recommends giving our identity ADMIN/);
    expect(await childrenOf(ops, dir)).toEqual([]);
    // What it would have let through: the impostor may take the lock away.
    const impostor = await connect({ auth: [{ scheme: 'digest', credentials: 'app:evil' }] });
    await impostor.create(`${dir}/evil-`, null, { mode: 'persistent_sequential' });
  });

  it('is checked once per lock object and directory incarnation, not per acquire', async () => {
    const dir = `${root}/once/lock`;
    const session = await app();
    const mutex = new InterProcessMutex(session, dir);
    const holder = await mutex.acquire(); // creates the directory, with our ACL: accepted
    // A node without a sequence (ignored by the locks) keeps this incarnation from being reaped.
    await ops.create(`${dir}/keep`, null);
    // Opened by hand while the same incarnation lives: not seen again by this object...
    await ops.setACL(dir, [aclEntry(31, 'world', 'anyone')]);
    await holder.release();
    await (await mutex.acquire({ timeoutMs: 10_000 })).release();
    // ...but by a new lock object, on its first use.
    await expect(new InterProcessMutex(session, dir).acquire({ timeoutMs: 10_000 })).rejects.toMatchObject({ code: 'INSECURE_ACL' });
    // A new incarnation (the old one removed, as the container reaper does) is checked again.
    await ops.delete(`${dir}/keep`);
    await ops.delete(dir);
    await ops.create(dir, null, { acl: [aclEntry(31, 'world', 'anyone')] });
    await expect(mutex.acquire({ timeoutMs: 10_000 })).rejects.toMatchObject({ code: 'INSECURE_ACL' });
  });

  it("is checked for each key of a MutexSet: a key whose directory is open is refused, the others are not; once per kept lock object, at each first use of one dropped when idle", async () => {
    const base = `${root}/set`;
    await ops.mkdirp(`${base}/opened-by-hand`, 'persistent', { ancestors: 'persistent' });
    await ops.setACL(`${base}/opened-by-hand`, [aclEntry(31, 'world', 'anyone')]);
    const [host, port] = testConnectString().split(',')[0]!.split('/')[0]!.split(':') as [string, string];
    const proxy = await FaultProxy.start({ targetHost: host, targetPort: Number(port) });
    try {
      const session = await connect({ connectString: proxy.connectString, auth: [{ scheme: 'digest', credentials: APP }], acl: SECURE });
      const kept = new MutexSet(session, base);
      await expect(kept.acquire('opened-by-hand', { timeoutMs: 10_000 })).rejects.toMatchObject({ code: 'INSECURE_ACL', path: `${base}/opened-by-hand` });
      expect(await childrenOf(anonymous, `${base}/opened-by-hand`)).toEqual([]);
      const checks = () => proxy.requestsTo(ZK_OPCODES.getACL, `${base}/order-1`);
      // The first acquisition makes the directory and checks it; a kept lock does not again.
      const held = await kept.acquire('order-1', { timeoutMs: 10_000 });
      await ops.create(`${base}/order-1/keep`, null); // keeps this incarnation of the directory
      await held.release();
      for (let i = 0; i < 3; i++) await kept.withLock('order-1', () => undefined, { timeoutMs: 10_000 });
      expect(checks()).toBe(1);
      // A set that drops idle locks makes a new lock object, which checks on its first use.
      const dropping = new MutexSet(session, base, { maxIdleLocks: 0 });
      for (let i = 0; i < 3; i++) await dropping.withLock('order-1', () => undefined, { timeoutMs: 10_000 });
      expect(checks()).toBe(4);
      await ops.delete(`${base}/order-1/keep`);
    } finally {
      await proxy.close();
    }
  });

  it("is used when the session opts out with aclCheck: 'off'", async () => {
    const dir = `${root}/opt-out/lock`;
    await anonymous.mkdirp(dir, 'persistent');
    const handle = await new InterProcessMutex(await app({ aclCheck: 'off' }), dir).acquire({ timeoutMs: 10_000 });
    expect(await childrenOf(anonymous, dir)).toEqual([handle.path.slice(dir.length + 1)]);
    await handle.release();
  });
});

// A client cannot tell a container from a persistent node by its stat (the server reports
// ephemeralOwner 0 for both, not the Long.MIN_VALUE it keeps): what shows a container is the
// server's reaper removing it once empty, here every 100 ms instead of every minute.
describe('the directories a restrictive ACL creates', () => {
  let reaping: TestingServer;
  let anonymousThere: ZkSession;
  /** Reads ACLs: the server shows digest hashes only to a session with ADMIN on the node (else `user:x`). */
  let opsThere: ZkSession;
  beforeAll(async () => {
    reaping = await TestingServer.start({ systemProperties: { 'znode.container.checkIntervalMs': '100' } });
    anonymousThere = await connect({ connectString: reaping.connectString });
    opsThere = await connect({ connectString: reaping.connectString, auth: [{ scheme: 'digest', credentials: OPS }] });
    await anonymousThere.mkdirp(root, 'persistent');
  });
  afterAll(async () => {
    await Promise.all(sessions.filter((s) => s.options.connectString === reaping?.connectString).map((s) => s.close()));
    await reaping?.stop();
  });
  const appThere = () => app({ connectString: reaping.connectString });
  const gone = (path: string) => waitUntilGone(anonymousThere, path, AbortSignal.timeout(30_000));

  it('under the open default, every missing ancestor is a container and goes once idle (the old behaviour)', async () => {
    const dir = `${root}/open-tree/a/lock`;
    await (await new InterProcessMutex(anonymousThere, dir).acquire()).release();
    expect(await gone(`${root}/open-tree`)).toBe('gone');
  });

  it('are persistent ancestors with the ACL, and only the lock directory is a container: they survive its removal', async () => {
    const dir = `${root}/tree/a/b/lock`;
    const session = await appThere();
    const held = await new InterProcessMutex(session, dir).acquire();
    expect((await opsThere.getACL(dir)).acl).toEqual(SECURE_STORED); // read while held: the reaper may take it once free
    await held.release();
    expect(await gone(dir)).toBe('gone');
    // A reaper round that began after the lock directory went would have taken an empty container
    // parent too: a canary container emptied now is removed by such a round.
    await reaperRound(anonymousThere, root);
    for (const ancestor of [`${root}/tree`, `${root}/tree/a`, `${root}/tree/a/b`]) {
      expect((await opsThere.getACL(ancestor)).acl).toEqual(SECURE_STORED);
    }
    // So nobody else can put an open lock directory in its place.
    await expect(anonymousThere.create(dir, null)).rejects.toMatchObject({ code: 'NO_AUTH' });
    await (await new InterProcessMutex(session, dir).acquire({ timeoutMs: 10_000 })).release();
  });
});

describe('an ACL that would lock us out of our own nodes', () => {
  it('is refused by connect(), naming the missing permission', async () => {
    const noDelete = [aclEntry(31 & ~8, 'auth', ''), aclEntry(1, 'world', 'anyone')];
    await expect(connect({ auth: [{ scheme: 'digest', credentials: APP }], acl: noDelete })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/acl: grants this session no DELETE permission/) as unknown,
    });
    const noCreate = [aclEntry(31 & ~4, 'auth', '')];
    await expect(connect({ auth: [{ scheme: 'digest', credentials: APP }], acl: noCreate })).rejects.toMatchObject({
      message: expect.stringMatching(/no CREATE permission/) as unknown,
    });
  });
});

describe('an ACL that protects nothing', () => {
  it('with ADMIN for anyone is refused by connect(): anyone could setACL the nodes open', async () => {
    const adminForAnyone = [aclEntry(31, 'auth', ''), aclEntry(1 | 16, 'world', 'anyone')];
    await expect(connect({ auth: [{ scheme: 'digest', credentials: APP }], acl: adminForAnyone })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/acl: grants world:anyone ADMIN/) as unknown,
    });
  });
});

describe('sasl and x509 ACLs, judged against the session up front', () => {
  let secure: TestingServer;
  beforeAll(async () => {
    secure = await TestingServer.start({ forceSync: false, tls: true, sasl: { users: { alice: 'pw-a', bob: 'pw-b' } } });
    // Open parents, so that each identity's nodes below do not shut the other out.
    await (await connect({ connectString: secure.connectString })).mkdirp(root, 'persistent');
  });
  afterAll(async () => {
    await Promise.all(sessions.filter((s) => [secure?.connectString, secure?.tls?.connectString].includes(s.options.connectString)).map((s) => s.close()));
    await secure?.stop();
  });
  const alice = { mechanism: 'DIGEST-MD5' as const, username: 'alice', password: 'pw-a' };
  const tlsAs = (who: 'alice' | 'bob') => ({ ca: secure.tls!.ca, ...secure.tls!.clients[who] });

  it("an ACL naming only another SASL user is refused with INVALID_ARGUMENT, naming what it lacks; the session's own is accepted", async () => {
    const bobOnly = [aclEntry(31, 'sasl', 'bob'), aclEntry(1, 'world', 'anyone')];
    const err: unknown = await connect({ connectString: secure.connectString, sasl: alice, acl: bobOnly }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect((err as Error).message).toMatch(/no CREATE permission.*no DELETE permission/);
    expect((err as Error).message).not.toMatch(/no READ/);
    const session = await connect({ connectString: secure.connectString, sasl: alice, acl: [aclEntry(31, 'sasl', 'alice')] });
    await (await new InterProcessMutex(session, `${root}/sasl/lock`).acquire()).release();
  });

  it("an ACL naming only another certificate's subject is refused; the session's own subject is accepted as the server writes it", async () => {
    const tls = secure.tls!;
    const err: unknown = await connect({ connectString: tls.connectString, tls: tlsAs('alice'), acl: [aclEntry(31, 'x509', 'CN=bob')] }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT' });
    for (const name of ['READ', 'CREATE', 'DELETE']) expect((err as Error).message).toContain(`no ${name} permission`);
    const session = await connect({ connectString: tls.connectString, tls: tlsAs('alice'), acl: [aclEntry(31, 'x509', 'CN=alice')] });
    const dir = `${root}/x509/lock`;
    const handle = await new InterProcessMutex(session, dir).acquire();
    expect((await session.getACL(handle.path)).acl).toEqual([aclEntry(31, 'x509', 'CN=alice')]);
    await handle.release();
  });
});

describe('a release the server refuses', () => {
  it('rejects with RELEASE_FAILED (the NO_AUTH as error) carrying the handle, which is not held from the call on; once an admin fixes the ACL, releasing it again works', async () => {
    const dir = `${root}/refused/lock`;
    const session = await app();
    const mutex = new InterProcessMutex(session, dir);
    const handle = await mutex.acquire();
    // An operator takes DELETE away from the app (deleting a child needs DELETE on its parent).
    await ops.setACL(dir, NO_DELETE);
    const err = (await handle.release().catch((e: unknown) => e)) as ReleaseFailedError<LockHandle>;
    expect(err).toMatchObject({ code: 'RELEASE_FAILED', fnFailed: false, error: expect.objectContaining({ code: 'NO_AUTH' }) as unknown });
    expect(err.handle).toBe(handle);
    expect(handle.held).toBe(false);
    expect(handle.signal.reason).toMatchObject({ code: 'RELEASED' });
    // The node is still ours: nobody else gets the lock, and this context cannot re-enter it.
    expect(mutex.isAcquiredInThisProcess()).toBe(true);
    expect(mutex.isOwnedByCurrentContext()).toBe(false);
    expect(await anonymous.exists(handle.path)).not.toBeNull();
    await ops.setACL(dir, SECURE_STORED);
    await err.handle.release();
    expect(mutex.isAcquiredInThisProcess()).toBe(false);
    expect(await anonymous.exists(handle.path)).toBeNull();
    await expect(handle.release()).rejects.toMatchObject({ code: 'NOT_OWNER' });
    // The lock is free again for everyone.
    await (await new InterProcessMutex(await app(), dir).acquire({ timeoutMs: 10_000 })).release();
  });

  it('in withLock rejects with RELEASE_FAILED carrying the handle, keeping what fn threw; releasing the handle again works', async () => {
    const dir = `${root}/refused-with-lock/lock`;
    const mutex = new InterProcessMutex(await app(), dir);
    const thrown = new Error('the work failed');
    const err = (await mutex
      .withLock(async () => {
        await ops.setACL(dir, NO_DELETE);
        throw thrown;
      })
      .catch((e: unknown) => e)) as ReleaseFailedError<LockHandle>;
    expect(err).toMatchObject({ code: 'RELEASE_FAILED', fnFailed: true, error: expect.objectContaining({ code: 'NO_AUTH' }) as unknown });
    expect(err.suppressed).toBe(thrown);
    expect(err.handle.held).toBe(false);
    expect(await anonymous.exists(err.handle.path)).not.toBeNull();
    await ops.setACL(dir, SECURE_STORED);
    await err.handle.release();
    expect(await anonymous.exists(err.handle.path)).toBeNull();
    expect(mutex.isAcquiredInThisProcess()).toBe(false);

    // fn returned: the same error, nothing suppressed.
    const returned = (await mutex
      .withLock(async () => {
        await ops.setACL(dir, NO_DELETE);
        return 'done';
      })
      .catch((e: unknown) => e)) as ReleaseFailedError<LockHandle>;
    expect(returned).toMatchObject({ code: 'RELEASE_FAILED', fnFailed: false, suppressed: undefined, error: expect.objectContaining({ code: 'NO_AUTH' }) as unknown });
    await ops.setACL(dir, SECURE_STORED);
    await returned.handle.release();
  });

  it('at the end of an await using block rejects with RELEASE_FAILED carrying the handle', async () => {
    const dir = `${root}/refused-await-using/lock`;
    const mutex = new InterProcessMutex(await app(), dir);
    const block = async (): Promise<void> => {
      await using _held = await mutex.acquire();
      await ops.setACL(dir, NO_DELETE);
    };
    const err = (await block().catch((e: unknown) => e)) as ReleaseFailedError<LockHandle>;
    expect(err).toMatchObject({ code: 'RELEASE_FAILED', error: expect.objectContaining({ code: 'NO_AUTH' }) as unknown });
    expect(await anonymous.exists(err.handle.path)).not.toBeNull();
    await ops.setACL(dir, SECURE_STORED);
    await err.handle.release();
    expect(mutex.isAcquiredInThisProcess()).toBe(false);
  });

  it('still watches the node after the refusal: someone else deleting it is told (lost, NODE_DELETED), and releasing again just finishes', async () => {
    const dir = `${root}/refused-then-deleted/lock`;
    const mutex = new InterProcessMutex(await app(), dir);
    const handle = await mutex.acquire();
    await ops.setACL(dir, NO_DELETE);
    await expect(handle.release()).rejects.toMatchObject({ code: 'RELEASE_FAILED' });
    const lost = new Promise<Error>((resolve) => mutex.once('lost', resolve));
    await ops.delete(handle.path);
    expect(await lost).toMatchObject({ code: 'NODE_DELETED' });
    expect(handle.signal.reason).toMatchObject({ code: 'RELEASED' }); // aborted since the release, by it
    await handle.release(); // the node is gone: nothing left to refuse
    expect(mutex.isAcquiredInThisProcess()).toBe(false);
    await expect(handle.release()).rejects.toMatchObject({ code: 'NOT_OWNER' });
  });
});
