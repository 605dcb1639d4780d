import { ZkSession } from '@zk-recipes/core';
import { ensureCuratorPrograms, spawnCuratorWorker, testConnectString, uniqueRoot, type CuratorWorker } from '@zk-recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InterProcessSemaphore } from '../src/index.js';
import { SEMAPHORE_WORKER, spawnNodeWorker, type NodeWorker } from './support/processes.js';
import { maxConcurrency, sectionsOf } from './support/sections.js';

// Curator 5.4's InterProcessSemaphoreV2 (Debian's jars, bench/java CuratorWorker) on the same path.
const root = uniqueRoot('semaphore-curator');
const javaWorkers: CuratorWorker[] = [];
const nodeWorkers: NodeWorker[] = [];
let session: ZkSession;

async function java(args: string[]): Promise<CuratorWorker> {
  const worker = await spawnCuratorWorker(['--wait-go', ...args]);
  javaWorkers.push(worker);
  await worker.waitForLine((l) => l.type === 'ready');
  return worker;
}

async function leaseCount(path: string): Promise<number> {
  try {
    return (await session.getChildren(`${path}/leases`)).children.length;
  } catch {
    return 0;
  }
}

async function untilLeaseNodes(path: string, n: number): Promise<void> {
  while ((await leaseCount(path)) !== n) await new Promise((resolve) => setImmediate(resolve));
}

beforeAll(async () => {
  await ensureCuratorPrograms();
  session = await ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs: 4000 });
}, 120_000);

afterAll(async () => {
  for (const worker of nodeWorkers) worker.kill();
  await Promise.all(javaWorkers.map((w) => w.stop()));
  await session.close();
});

describe("layout 'curator' interoperates with Curator's InterProcessSemaphoreV2", () => {
  it('a Curator client waits while we hold every lease, and gets one when we release', async () => {
    const path = `${root}/java-waits`;
    const sem = new InterProcessSemaphore(session, path, { maxLeases: 2, layout: 'curator' });
    const ours = await sem.acquireMany(2);
    const worker = await java(['semaphore', testConnectString(), path, '2', '1', '0']);
    worker.go();
    await untilLeaseNodes(path, 3); // its lease node is in, and it waits
    const releasedAt = process.hrtime.bigint();
    await ours[0]!.release();
    const [section] = (await worker.finished()).filter((l) => l.type === 'section');
    expect(BigInt(String(section!['start']))).toBeGreaterThan(releasedAt);
    await ours[1]!.release();
    expect(await leaseCount(path)).toBe(0);
  });

  it('we wait while a Curator client holds the only lease', async () => {
    const path = `${root}/we-wait`;
    const sem = new InterProcessSemaphore(session, path, { maxLeases: 1, layout: 'curator' });
    const worker = await java(['semaphore', testConnectString(), path, '1', '1', '1500']);
    worker.go();
    await untilLeaseNodes(path, 1);
    expect(await sem.tryAcquire()).toBeNull();
    const lease = await sem.acquire({ timeoutMs: 20_000 });
    const acquiredAt = process.hrtime.bigint();
    const [section] = (await worker.finished()).filter((l) => l.type === 'section');
    expect(acquiredAt).toBeGreaterThan(BigInt(String(section!['end'])));
    await lease.release();
  });

  it('3 Curator and 3 Node processes looping on 2 leases: never more than 2 at once, no node left', async () => {
    const path = `${root}/mixed`;
    const iterations = 8;
    const javas = await Promise.all(Array.from({ length: 3 }, () => java(['semaphore', testConnectString(), path, '2', String(iterations), '3'])));
    const nodes = Array.from({ length: 3 }, () =>
      spawnNodeWorker(SEMAPHORE_WORKER, ['--wait-go', testConnectString(), path, '2', String(iterations), '3', 'curator']),
    );
    nodeWorkers.push(...nodes);
    await Promise.all(nodes.map((w) => w.waitForLine((l) => l.type === 'ready')));
    for (const w of [...javas, ...nodes]) w.go();
    const lines = [...(await Promise.all(javas.map((w) => w.finished()))).flat(), ...(await Promise.all(nodes.map((w) => w.finished()))).flat()];
    const sections = sectionsOf(lines as Array<Record<string, unknown>>);
    expect(sections).toHaveLength(6 * iterations);
    expect(maxConcurrency(sections)).toBeLessThanOrEqual(2);
    expect(await leaseCount(path)).toBe(0);
  }, 120_000);
});
