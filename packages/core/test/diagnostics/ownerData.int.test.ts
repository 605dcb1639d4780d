/**
 * Owner data by default (docs/observability.md, "Owner data"): every queue node a recipe creates
 * without a `data` option names this host, this process and the session's `label`, in every
 * recipe and layout, and still does once its holder was granted after waiting (nothing is written to it).
 */
import { hostname } from 'node:os';
import { parseOwnerData, ZkSession, type NodeOwner } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { InterProcessSemaphore } from '@zk-recipes/semaphore';
import { childrenOf, testConnectString, uniqueRoot, untilChildCount } from '@zk-recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = uniqueRoot('owner-data');
const sessions: ZkSession[] = [];
let counter = 0;
const dir = (name: string): string => `${root}/${++counter}-${name}`;

async function connect(label?: string): Promise<ZkSession> {
  const session = await ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs: 4_000, ...(label === undefined ? {} : { label }) });
  sessions.push(session);
  return session;
}

let labelled: ZkSession;
let plain: ZkSession;
beforeAll(async () => {
  labelled = await connect('orders-worker');
  plain = await connect();
});
afterAll(async () => {
  await Promise.all(sessions.map((s) => s.close()));
});

const LABELLED: NodeOwner = { host: hostname(), pid: process.pid, label: 'orders-worker' };
const PLAIN: NodeOwner = { host: hostname(), pid: process.pid };

/** The owner each child of `path` names, by name. */
async function ownersIn(path: string): Promise<Record<string, NodeOwner | undefined>> {
  const owners: Record<string, NodeOwner | undefined> = {};
  for (const name of await childrenOf(plain, path)) owners[name] = parseOwnerData((await plain.getData(`${path}/${name}`)).data);
  return owners;
}

describe('owner data by default', () => {
  it('a mutex node: exactly the documented JSON, with the label; without one, host and pid only', async () => {
    const path = dir('mutex');
    const handle = await new InterProcessMutex(labelled, path).acquire();
    const { data } = await plain.getData(handle.path);
    expect(Buffer.from(data).toString('utf8')).toBe(`{"zkRecipes":1,"host":${JSON.stringify(hostname())},"pid":${process.pid},"label":"orders-worker"}`);
    const waiter = new InterProcessMutex(plain, path).acquire();
    await untilChildCount(plain, path, 2);
    const owners = Object.values(await ownersIn(path));
    expect(owners).toEqual(expect.arrayContaining([LABELLED, PLAIN]));
    await handle.release();
    await (await waiter).release();
  });

  it("a caller's data replaces it", async () => {
    const handle = await new InterProcessMutex(labelled, dir('own-data'), { data: 'mine' }).acquire();
    expect(Buffer.from((await plain.getData(handle.path)).data).toString()).toBe('mine');
    await handle.release();
  });

  it('read and write nodes, and the read node of a downgrade', async () => {
    const path = dir('rw');
    const rw = new InterProcessReadWriteLock(labelled, path);
    const write = await rw.writeLock().acquire();
    const read = await rw.readLock().acquire(); // downgrade: a node the recipe creates itself
    const owners = await ownersIn(path);
    expect(Object.keys(owners).sort()).toEqual([read.path, write.path].map((p) => p.split('/').pop()).sort());
    expect(Object.values(owners)).toEqual([LABELLED, LABELLED]);
    await write.release();
    await read.release();
  });

  it('semaphore lease nodes in both layouts, and the curator layout\'s internal lock node', async () => {
    const queuePath = dir('semaphore-queue');
    const lease = await new InterProcessSemaphore(labelled, queuePath, { maxLeases: 1 }).acquire();
    expect(Object.values(await ownersIn(queuePath))).toEqual([LABELLED]);
    await lease.release();

    const curatorPath = dir('semaphore-curator');
    const curator = new InterProcessSemaphore(labelled, curatorPath, { maxLeases: 1, layout: 'curator' });
    const held = await curator.acquire();
    expect(Object.values(await ownersIn(`${curatorPath}/leases`))).toEqual([LABELLED]);
    // The internal lock is held only while a lease is being taken: look at it while one waits.
    const rival = new InterProcessSemaphore(plain, curatorPath, { maxLeases: 1, layout: 'curator' });
    const waiting = rival.acquire({ timeoutMs: 10_000 });
    await untilChildCount(plain, `${curatorPath}/locks`, 1);
    expect(Object.values(await ownersIn(`${curatorPath}/locks`))).toEqual([PLAIN]);
    await held.release();
    await (await waiting).release();
  });

  it('a holder granted after waiting still names its owner: nothing is written to a queue node after its create', async () => {
    const path = dir('handed-over');
    const third = await connect();
    const holder = await new InterProcessMutex(plain, path).acquire();
    const next = new InterProcessMutex(labelled, path).acquire();
    await untilChildCount(plain, path, 2);
    const last = new InterProcessMutex(third, path).acquire();
    await untilChildCount(plain, path, 3);
    await holder.release();
    const granted = await next;
    // Granted after waiting, with another session's waiter behind it: its node is as created.
    const { data, stat } = await labelled.getData(granted.path);
    expect(stat.version).toBe(0);
    expect(parseOwnerData(data)).toEqual(LABELLED);
    await granted.release();
    await (await last).release();
  });
});
