/**
 * `Lease.fencingToken`: the lease node's czxid, in both layouts, growing across successive leases.
 */
import { ZkSession } from '@zk-recipes/core';
import { childrenOf, testConnectString, uniqueRoot } from '@zk-recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InterProcessSemaphore, type Lease } from '../src/index.js';

const root = uniqueRoot('semaphore-fencing');
const sessions: ZkSession[] = [];
let observer: ZkSession;

async function connect(): Promise<ZkSession> {
  const session = await ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs: 4000 });
  sessions.push(session);
  return session;
}

beforeAll(async () => {
  observer = await connect();
});
afterAll(async () => {
  await Promise.all(sessions.map((s) => s.close()));
});

/** The czxid the server reports for the lease's node. */
async function czxidOf(lease: Lease): Promise<bigint> {
  const { stat } = await observer.getData(lease.path);
  return stat.czxid;
}

describe.each(['queue', 'curator'] as const)('InterProcessSemaphore (%s layout) lease fencing tokens', (layout) => {
  it("is the lease node's czxid, distinct per node, and grows with every later lease (two sessions)", async () => {
    const path = `${root}/${layout}/grows`;
    const a = new InterProcessSemaphore(await connect(), path, { maxLeases: 2, layout });
    const b = new InterProcessSemaphore(await connect(), path, { maxLeases: 2, layout });
    const tokens: bigint[] = [];
    let previous: Lease | undefined;
    for (let i = 0; i < 6; i++) {
      const calledAt = performance.now();
      const lease = await (i % 2 === 0 ? a : b).acquire({ timeoutMs: 15_000 });
      // The grant's moment (the engine's last check of the session) lies inside the call.
      expect(lease.grantedAt).toBeGreaterThan(calledAt);
      expect(lease.grantedAt).toBeLessThanOrEqual(performance.now());
      expect(typeof lease.fencingToken).toBe('bigint');
      expect(lease.fencingToken).toBe(await czxidOf(lease));
      tokens.push(lease.fencingToken);
      // Two leases held at once have different nodes and different tokens.
      if (previous !== undefined) {
        expect(lease.path).not.toBe(previous.path);
        expect(lease.fencingToken).toBeGreaterThan(previous.fencingToken);
        await previous.release();
      }
      previous = lease;
    }
    await previous!.release();
    for (let i = 1; i < tokens.length; i++) expect(tokens[i]!).toBeGreaterThan(tokens[i - 1]!);
    // The token survives the release (it names the lease, not the moment).
    expect(previous!.held).toBe(false);
    expect(previous!.fencingToken).toBe(tokens.at(-1));
    const leftovers = layout === 'queue' ? await childrenOf(observer, path) : await childrenOf(observer, `${path}/leases`);
    expect(leftovers).toEqual([]);
  });

  it('acquireMany: each lease carries the token of the node that backs it', async () => {
    const path = `${root}/${layout}/many`;
    const semaphore = new InterProcessSemaphore(await connect(), path, { maxLeases: 3, layout });
    const leases = await semaphore.acquireMany(3, { timeoutMs: 15_000 });
    for (const lease of leases) expect(lease.fencingToken).toBe(await czxidOf(lease));
    if (layout === 'queue') {
      // One node carries all three leases.
      expect(new Set(leases.map((l) => l.fencingToken)).size).toBe(1);
    } else {
      // One node per lease, created in order.
      const tokens = leases.map((l) => l.fencingToken);
      expect(new Set(tokens).size).toBe(3);
      expect([...tokens].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0))).toEqual(tokens);
    }
    const next = semaphore.acquire({ timeoutMs: 15_000 });
    await Promise.all(leases.map((l) => l.release()));
    const later = await next;
    expect(later.fencingToken).toBeGreaterThan(leases.at(-1)!.fencingToken);
    expect(later.fencingToken).toBe(await czxidOf(later));
    await later.release();
  });
});
