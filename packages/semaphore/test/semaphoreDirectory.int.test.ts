import { ZkSession } from '@zk-recipes/core';
import { waitUntilGone } from '@zk-recipes/core/recipe-kit';
import { testConnectString, TestingServer, uniqueRoot } from '@zk-recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InterProcessSemaphore } from '../src/index.js';

const root = uniqueRoot('semaphore-directory');
const sessions: ZkSession[] = [];

async function connect(connectString = testConnectString()): Promise<ZkSession> {
  const session = await ZkSession.connect({ connectString, sessionTimeoutMs: 4000 });
  sessions.push(session);
  return session;
}

let main: ZkSession;
/** A server whose container reaper runs every 100 ms instead of every minute. */
let reaping: TestingServer;
beforeAll(async () => {
  main = await connect();
  reaping = await TestingServer.start({ systemProperties: { 'znode.container.checkIntervalMs': '100' } });
});
afterAll(async () => {
  await Promise.all(sessions.map((s) => s.close()));
  await reaping?.stop();
});

describe.each(['queue', 'curator'] as const)('%s layout: the lease directory', (layout) => {
  const leasesOf = (path: string): string => (layout === 'queue' ? path : `${path}/leases`);

  it('records a fixed maxLeases as the data of the directory that holds the leases', async () => {
    const path = `${root}/${layout}-recorded`;
    const lease = await new InterProcessSemaphore(main, path, { maxLeases: 2, layout }).acquire();
    expect((await main.getData(leasesOf(path))).data.toString()).toBe('2');
    await lease.release();
  });

  // A client cannot tell a container from a persistent node by its stat (the server reports
  // ephemeralOwner 0 for both): what shows it is the server's reaper removing it.
  it('is a container: the server removes it once idle, and its record with it', async () => {
    const session = await connect(reaping.connectString);
    const path = `${root}/${layout}-reaped`;
    await (await new InterProcessSemaphore(session, path, { maxLeases: 2, layout }).acquire()).release();
    expect(await waitUntilGone(session, path, AbortSignal.timeout(30_000))).toBe('gone');
    // Nothing remembers the old value: another maxLeases is fine now.
    const lease = await new InterProcessSemaphore(session, path, { maxLeases: 5, layout }).acquire();
    expect((await session.getData(leasesOf(path))).data.toString()).toBe('5');
    await lease.release();
  });

  it('removed while idle, it is recorded again by the next client; an object that agreed with the removed one is then refused', async () => {
    const path = `${root}/${layout}-incarnations`;
    const earlier = new InterProcessSemaphore(main, path, { maxLeases: 2, layout });
    await (await earlier.acquire()).release();
    // What the server's container reaper does once nobody is in it.
    await main.delete(leasesOf(path));
    const later = new InterProcessSemaphore(await connect(), path, { maxLeases: 3, layout });
    const held = await later.acquire();
    expect((await main.getData(leasesOf(path))).data.toString()).toBe('3');
    // Its check of the record was per directory incarnation, not per object: refused, nothing left.
    await expect(earlier.acquire({ timeoutMs: 10_000 })).rejects.toMatchObject({ code: 'INCONSISTENT_MAX_LEASES' });
    expect(await later.getParticipantNodes()).toEqual([held.path]);
    await held.release();
  });

  it('an empty directory (made by Curator or by hand) is claimed by one value only', async () => {
    const path = `${root}/${layout}-claimed`;
    await main.mkdirp(leasesOf(path), 'container');
    const [two, three] = await Promise.allSettled([
      new InterProcessSemaphore(await connect(), path, { maxLeases: 2, layout }).acquire({ timeoutMs: 10_000 }),
      new InterProcessSemaphore(await connect(), path, { maxLeases: 3, layout }).acquire({ timeoutMs: 10_000 }),
    ]);
    const granted = [two, three].filter((r) => r.status === 'fulfilled');
    const refused = [two, three].filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(granted).toHaveLength(1);
    expect(refused.map((r) => (r.reason as { code?: string }).code)).toEqual(['INCONSISTENT_MAX_LEASES']);
    const recorded = (await main.getData(leasesOf(path))).data.toString();
    expect(recorded).toBe(two.status === 'fulfilled' ? '2' : '3');
    await (granted[0] as PromiseFulfilledResult<{ release(): Promise<void> }>).value.release();
  });
});
