/**
 * ZkSession against a real ZooKeeper 3.8 server: operations, errors, CREATE2 stats, pipelining,
 * watches, ACLs, close semantics.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZkSession } from '../../src/session/index.js';
import { SessionClosedError, ZooKeeperError, InvalidArgumentError } from '../../src/errors.js';
import { FaultProxy } from '../../../testing/src/FaultProxy.js';
import { serverWatchedPaths } from '@zk-recipes/testing';
import { nextEvent, pollUntil, sharedServer, uniqueRoot } from './support.js';
import { sessionInternals } from '../../src/internal.js';
import { expectSoonerThan } from '../support/timeBound.js';

let server: ReturnType<typeof sharedServer>;
let s: ZkSession;
const root = uniqueRoot('session');

beforeAll(async () => {
  server = sharedServer();
  s = await ZkSession.connect({ connectString: server.connectString, sessionTimeoutMs: 4000 });
  await s.mkdirp(root);
});

afterAll(async () => {
  await s?.close();
});

describe('ZkSession basics', () => {
  it('connects with a 16-hex session id, generation 1, the negotiated timeout', () => {
    expect(s.state).toBe('connected');
    expect(s.sessionId).toMatch(/^[0-9a-f]{16}$/);
    expect(s.sessionIdBigInt).toBe(BigInt('0x' + s.sessionId));
    expect(s.generation).toBe(1);
    expect(s.negotiatedSessionTimeoutMs).toBe(4000);
    expect(s.sessionSignal.aborted).toBe(false);
    expect(s.defaultAcl).toEqual([{ perms: 31, scheme: 'world', id: 'anyone' }]);
    expect(typeof s.retryPolicy.nextDelayMs).toBe('function');
  });

  it('create returns the CREATE2 stat: czxid > 0 and ephemeralOwner = our session', async () => {
    const r = await s.create(`${root}/eph-`, Buffer.from('hi'), { mode: 'ephemeral_sequential' });
    expect(r.path).toMatch(new RegExp(`^${root}/eph-\\d{10}$`));
    expect(r.stat.czxid).toBeGreaterThan(0n);
    expect(r.stat.ephemeralOwner).toBe(s.sessionIdBigInt);
    expect(r.stat.dataLength).toBe(2);
    const persistent = await s.create(`${root}/p`, null);
    expect(persistent.stat.ephemeralOwner).toBe(0n);
    expect(persistent.stat.czxid).toBeGreaterThan(r.stat.czxid);
  });

  it('getData / setData / exists / delete with versions', async () => {
    const p = `${root}/data`;
    await s.create(p, Buffer.from('a'));
    const st = await s.setData(p, Buffer.from('bb'), 0);
    expect(st.version).toBe(1);
    const { data, stat } = await s.getData(p);
    expect(data.toString()).toBe('bb');
    expect(stat.version).toBe(1);
    await expect(s.setData(p, Buffer.from('c'), 0)).rejects.toMatchObject({ code: 'BAD_VERSION', zkCode: -103, op: 'setData', path: p });
    await expect(s.delete(p, 0)).rejects.toMatchObject({ code: 'BAD_VERSION' });
    expect((await s.exists(p))?.version).toBe(1);
    await s.delete(p, 1);
    expect(await s.exists(p)).toBeNull();
  });

  it('maps server errors to ZooKeeperError with code, zkCode, op and path', async () => {
    const missing = `${root}/missing/child`;
    const e1 = await s.getData(missing).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(ZooKeeperError);
    expect(e1).toMatchObject({ code: 'NO_NODE', zkCode: -101, op: 'getData', path: missing });
    await expect(s.create(root, null)).rejects.toMatchObject({ code: 'NODE_EXISTS', zkCode: -110 });
    await s.create(`${root}/ne`, null);
    await s.create(`${root}/ne/c`, null);
    await expect(s.delete(`${root}/ne`)).rejects.toMatchObject({ code: 'NOT_EMPTY', zkCode: -111 });
    const eph = await s.create(`${root}/e`, null, { mode: 'ephemeral' });
    await expect(s.create(`${eph.path}/x`, null)).rejects.toMatchObject({ code: 'NO_CHILDREN_FOR_EPHEMERALS' });
  });

  it('rejects invalid arguments without touching the wire', async () => {
    await expect(s.getData('relative')).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(s.delete('/a/', -1)).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(s.delete(`${root}/x`, -2)).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(ZkSession.connect({ connectString: 'nope', sessionTimeoutMs: -1 } as never)).rejects.toThrow(
      /connectString.*sessionTimeoutMs|sessionTimeoutMs.*connectString/s,
    );
  });

  it('getChildren lists children with the parent stat', async () => {
    const p = `${root}/kids`;
    await s.create(p, null);
    await Promise.all(['a', 'b', 'c'].map((c) => s.create(`${p}/${c}`, null)));
    const r = await s.getChildren(p);
    expect(r.children.sort()).toEqual(['a', 'b', 'c']);
    expect(r.stat.numChildren).toBe(3);
  });

  it('mkdirp creates missing ancestors and tolerates existing ones and concurrent calls', async () => {
    const p = `${root}/deep/a/b/c`;
    await Promise.all([s.mkdirp(p), s.mkdirp(p), s.mkdirp(`${root}/deep/a`)]);
    expect(await s.exists(p)).not.toBeNull();
    await s.mkdirp(p);
  });

  it('transaction: atomic ops, results, and the failing op reported', async () => {
    const p = `${root}/tx`;
    const res = await s.transaction([
      { type: 'create', path: p, data: Buffer.from('0') },
      { type: 'create', path: `${p}/child`, mode: 'ephemeral' },
      { type: 'setData', path: p, data: Buffer.from('1'), version: 0 },
      { type: 'check', path: p, version: 1 },
    ]);
    expect(res.map((r) => r.type)).toEqual(['create', 'create', 'setData', 'check']);
    expect(res[0]).toEqual({ type: 'create', path: p });
    const err = await s
      .transaction([
        { type: 'delete', path: `${p}/child` },
        { type: 'check', path: `${root}/nothing-here`, version: 0 },
      ])
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'NO_NODE', op: 'transaction', path: `${root}/nothing-here` });
    // Atomic: the delete did not happen.
    expect(await s.exists(`${p}/child`)).not.toBeNull();
  });

  it('pipelines: create + getChildren go out back to back and the listing contains the new node (one round trip)', async () => {
    const proxy = await FaultProxy.start({ targetPort: server.port, targetHost: server.host });
    const p = await ZkSession.connect({ connectString: proxy.connectString, sessionTimeoutMs: 4000 });
    try {
      const dir = `${root}/pipe`;
      await p.mkdirp(dir);
      const mark = proxy.frames.length;
      const created = p.create(`${dir}/n-`, null, { mode: 'ephemeral_sequential' });
      const listed = p.getChildren(dir);
      const [c, l] = await Promise.all([created, listed]);
      expect(l.children).toContain(c.path.slice(dir.length + 1));
      const frames = proxy.frames.slice(mark).filter((f) => f.xid === undefined || f.xid >= 0);
      const createReq = frames.findIndex((f) => f.direction === 'request' && f.type === 15);
      const listReq = frames.findIndex((f) => f.direction === 'request' && f.type === 12);
      const firstReply = frames.findIndex((f) => f.direction === 'reply');
      expect(createReq).toBeGreaterThanOrEqual(0);
      expect(listReq).toBeGreaterThan(createReq);
      // Both requests reached the server before its first reply came back: one round trip.
      expect(firstReply).toBeGreaterThan(listReq);
    } finally {
      await p.close();
      await proxy.close();
    }
  });

  it('works under a chroot', async () => {
    const c = await ZkSession.connect({ connectString: `${server.connectString}${root}`, sessionTimeoutMs: 4000 });
    try {
      const r = await c.create('/in-chroot-', Buffer.from('x'), { mode: 'persistent_sequential' });
      expect(r.path).toMatch(/^\/in-chroot-\d{10}$/);
      expect((await c.getChildren('/')).children).toContain(r.path.slice(1));
      expect(await s.exists(`${root}${r.path}`)).not.toBeNull();
      const tx = await c.transaction([{ type: 'create', path: '/tx-in-chroot' }]);
      expect(tx).toEqual([{ type: 'create', path: '/tx-in-chroot' }]);
      const fired = new Promise((resolve) => void c.exists('/w-in-chroot', resolve));
      await pollUntil(() => sessionInternals(c).diagnostics.watchKeys === 1, 5000, 'watch registered');
      await s.create(`${root}/w-in-chroot`, null);
      expect(await fired).toEqual({ type: 'created', path: '/w-in-chroot' });
    } finally {
      await c.close();
    }
  });

  it('digest auth and a default ACL: other sessions get NO_AUTH', async () => {
    const { createHash } = await import('node:crypto');
    const digest = createHash('sha1').update('alice:secret').digest('base64');
    const acl = [{ perms: 31, scheme: 'digest', id: `alice:${digest}` }];
    const a = await ZkSession.connect({
      connectString: server.connectString,
      sessionTimeoutMs: 4000,
      auth: [{ scheme: 'digest', credentials: 'alice:secret' }],
      acl,
    });
    try {
      expect(a.defaultAcl).toEqual(acl);
      await a.create(`${root}/secret`, Buffer.from('s'));
      expect((await a.getData(`${root}/secret`)).data.toString()).toBe('s');
      await expect(s.getData(`${root}/secret`)).rejects.toMatchObject({ code: 'NO_AUTH', zkCode: -102 });
    } finally {
      await a.close();
    }
  });
});

describe('watches', () => {
  it('data, child and existence watches fire once, outside the socket handler', async () => {
    const p = `${root}/w1`;
    const created = new Promise((resolve) => void s.exists(p, resolve));
    await pollUntil(() => sessionInternals(s).diagnostics.watchKeys >= 1, 5000, 'exists watch');
    await s.create(p, null);
    expect(await created).toEqual({ type: 'created', path: p });
    const changed = new Promise((resolve) => void s.getData(p, resolve));
    const child = new Promise((resolve) => void s.getChildren(p, resolve));
    await pollUntil(() => sessionInternals(s).diagnostics.watchKeys >= 2, 5000, 'watches');
    await s.create(`${p}/c`, null);
    expect(await child).toEqual({ type: 'childrenChanged', path: p });
    await s.setData(p, Buffer.from('x'));
    expect(await changed).toEqual({ type: 'dataChanged', path: p });
  });

  it('10,000 watchers on one node share ONE wire-level watcher and all fire; no MaxListeners warning', async () => {
    // A session of its own with a long timeout: the session clock counts only what the server has
    // answered, and a pipeline of 10,000 requests may take seconds to answer on a busy machine.
    const s = await ZkSession.connect({ connectString: server.connectString, sessionTimeoutMs: 20_000 });
    const p = `${root}/many`;
    await s.create(p, null);
    const warnings: unknown[] = [];
    const onWarning = (w: unknown): void => void warnings.push(w);
    process.on('warning', onWarning);
    try {
      let fired = 0;
      const all = Array.from({ length: 10_000 }, () => new Promise<void>((resolve) => {
        void s.getData(p, () => {
          fired++;
          resolve();
        });
      }));
      await pollUntil(() => sessionInternals(s).diagnostics.watchers >= 10_000, 20_000, '10k watchers');
      expect(sessionInternals(s).diagnostics.watchKeys).toBe(1);
      await s.delete(p);
      await Promise.all(all);
      expect(fired).toBe(10_000);
      expect(sessionInternals(s).diagnostics.watchKeys).toBe(0);
      expect(warnings.filter((w) => String(w).includes('MaxListeners'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await s.close();
    }
  });

  it('hardening 7: a throwing watcher or state listener is caught and emitted as `error`, never uncaught', async () => {
    const p = `${root}/throwing`;
    await s.create(p, null);
    const boom = new Error('listener bug');
    let second = false;
    await s.getData(p, () => {
      throw boom;
    });
    await s.getData(p, () => {
      second = true;
    });
    const errored = nextEvent(s, 'error', 10_000);
    await s.setData(p, Buffer.from('1'));
    expect((await errored)[0]).toBe(boom);
    await pollUntil(() => second, 5000, 'the other watcher');

    const proxy = await FaultProxy.start({ targetPort: server.port, targetHost: server.host });
    const t = await ZkSession.connect({ connectString: proxy.connectString, sessionTimeoutMs: 4000 });
    try {
      const stateBoom = new Error('state listener bug');
      t.on('suspended', () => {
        throw stateBoom;
      });
      const err = nextEvent(t, 'error', 10_000);
      proxy.dropConnections();
      expect((await err)[0]).toBe(stateBoom);
      await nextEvent(t, 'reconnected');
    } finally {
      await t.close();
      await proxy.close();
    }
  });
});

describe('removeWatches', () => {
  const watched = (path: string) => serverWatchedPaths(server.connectString, s.sessionIdBigInt).then((paths) => paths.has(path));

  it('removes a data watch from the server once the last local watcher goes, and a change then reaches nobody', async () => {
    const p = `${root}/remove-watch`;
    await s.create(p, null);
    const seen: string[] = [];
    const a = (e: { type: string }) => void seen.push(`a:${e.type}`);
    const b = (e: { type: string }) => void seen.push(`b:${e.type}`);
    await s.getData(p, a);
    await s.getData(p, b);
    expect(await watched(p)).toBe(true);
    s.removeWatches(p, a);
    await s.exists(root); // a round trip: anything sent before it has been handled
    expect(await watched(p)).toBe(true); // b still watches
    s.removeWatches(p, b);
    await s.exists(root);
    expect(await watched(p)).toBe(false);
    expect(sessionInternals(s).diagnostics.watchKeys).toBe(0);
    await s.setData(p, Buffer.from('changed'));
    await s.exists(root);
    expect(seen).toEqual([]);
    // Watching again registers afresh.
    const fired = new Promise<string>((resolve) => void s.getData(p, (e) => resolve(e.type)));
    await pollUntil(async () => watched(p), 5000, 'watch set again');
    await s.setData(p, Buffer.from('again'));
    expect(await fired).toBe('dataChanged');
  });

  it('removes an exists watch on a missing node too', async () => {
    const missing = `${root}/remove-missing-watch`;
    const w = () => undefined;
    await s.exists(missing, w);
    expect(await watched(missing)).toBe(true);
    s.removeWatches(missing, w);
    await s.exists(root);
    expect(await watched(missing)).toBe(false);
    expect(sessionInternals(s).diagnostics.watchKeys).toBe(0);
  });

  it('removes a child watch: the server sends no notification afterwards', async () => {
    // `wchp` lists only data watches; the proxy's frame log shows what the server still sends.
    const proxy = await FaultProxy.start({ targetPort: server.port, targetHost: server.host });
    const t = await ZkSession.connect({ connectString: proxy.connectString, sessionTimeoutMs: 4000 });
    try {
      const p = `${root}/remove-child-watch`;
      await s.create(p, null);
      const kept = () => undefined;
      const given = () => undefined;
      const notifications = () => proxy.frames.filter((f) => f.direction === 'reply' && f.xid === -1).length;
      // Control: a child watch that is kept does send its notification.
      await t.getChildren(p, kept);
      await s.create(`${p}/a`, null);
      await pollUntil(() => notifications() === 1, 5000, 'the kept watch notification');
      await t.getChildren(p, given);
      t.removeWatches(p, given);
      await t.exists(root);
      await s.create(`${p}/b`, null);
      await t.exists(root); // a notification would have come before this reply
      expect(notifications()).toBe(1);
      expect(sessionInternals(t).diagnostics.watchKeys).toBe(0);
    } finally {
      await t.close();
      await proxy.close();
    }
  });

  it('keeps the watch when another request of ours is setting it at that moment', async () => {
    const p = `${root}/remove-watch-race`;
    await s.create(p, null);
    const first = () => undefined;
    await s.getData(p, first);
    // A second waiter's getData is on the wire when the first one gives up: removing the server
    // watch now would strip the watch the second request is about to rely on.
    const fired = new Promise<string>((resolve) => void s.getData(p, (e) => resolve(e.type)));
    s.removeWatches(p, first);
    await s.exists(root);
    expect(await watched(p)).toBe(true);
    await s.setData(p, Buffer.from('x'));
    expect(await fired).toBe('dataChanged');
  });
});

describe('close', () => {
  it('closes the ZooKeeper session (ephemerals go at once), is idempotent, and rejects later calls', async () => {
    const c = await ZkSession.connect({ connectString: server.connectString, sessionTimeoutMs: 4000 });
    const eph = await c.create(`${root}/closing-`, null, { mode: 'ephemeral_sequential' });
    const signal = c.sessionSignal;
    const closedEvent = nextEvent(c, 'closed');
    await Promise.all([c.close(), c.close()]);
    await closedEvent;
    expect(c.state).toBe('closed');
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).name).toBe('SessionClosedError');
    expect(await s.exists(eph.path)).toBeNull();
    await expect(c.getData(root)).rejects.toBeInstanceOf(SessionClosedError);
    await expect(c.waitForConnected()).rejects.toBeInstanceOf(SessionClosedError);
  });

  it('await using closes the session at the end of the block, a throwing block too; disposing again is no error', async () => {
    const made: Array<{ session: ZkSession; path: string }> = [];
    {
      await using c = await ZkSession.connect({ connectString: server.connectString, sessionTimeoutMs: 4000 });
      made.push({ session: c, path: (await c.create(`${root}/disposed-`, null, { mode: 'ephemeral_sequential' })).path });
      expect(await s.exists(made[0]!.path)).not.toBeNull();
    }
    const thrown = new Error('the block failed');
    const run = async (): Promise<void> => {
      await using c = await ZkSession.connect({ connectString: server.connectString, sessionTimeoutMs: 4000 });
      made.push({ session: c, path: (await c.create(`${root}/disposed-`, null, { mode: 'ephemeral_sequential' })).path });
      throw thrown;
    };
    await expect(run()).rejects.toBe(thrown);
    expect(made).toHaveLength(2);
    for (const { session, path } of made) {
      expect(session.state).toBe('closed');
      // The server ended the session: its ephemeral node is gone.
      expect(await s.exists(path)).toBeNull();
      await session[Symbol.asyncDispose]();
      expect(session.state).toBe('closed');
    }
  });

  it('every pending call settles on close, even ones queued while disconnected', async () => {
    const proxy = await FaultProxy.start({ targetPort: server.port, targetHost: server.host });
    const c = await ZkSession.connect({ connectString: proxy.connectString, sessionTimeoutMs: 4000 });
    try {
      void proxy.blackhole();
      const calls = [c.getData(root), c.create(`${root}/never`, null), c.getChildren(root), c.exists(root)];
      const results = await Promise.allSettled([...calls, c.close()]);
      for (const r of results.slice(0, 4)) {
        expect(r.status).toBe('rejected');
        expect((r as PromiseRejectedResult).reason).toBeInstanceOf(SessionClosedError);
      }
      expect(sessionInternals(c).diagnostics.pendingCalls).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it('connect() rejects after connectionTimeoutMs when no server answers, and cleans up', async () => {
    const proxy = await FaultProxy.start({ targetPort: server.port, targetHost: server.host });
    void proxy.blackhole();
    const t0 = Date.now();
    const err = await ZkSession.connect({
      connectString: proxy.connectString,
      sessionTimeoutMs: 4000,
      connectionTimeoutMs: 800,
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CONNECTION_LOSS', op: 'connect' });
    expectSoonerThan('the failed connect (not the session timeout)', Date.now() - t0, 3000);
    await pollUntil(() => proxy.connectionCount === 0, 5000, 'connections closed');
    await proxy.close();
  });
});
