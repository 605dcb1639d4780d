import { ZkSession } from '@zk-recipes/core';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { spawnCuratorWorker, testConnectString, uniqueRoot, type CuratorWorker } from '@zk-recipes/testing';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runNodeWorker, workerScript } from './support/processes.js';
import { checkReadWrite, sectionsOf } from './support/sections.js';
import { childrenOf, untilChildren, untilWatched } from './support/zk.js';

const root = uniqueRoot('read-write-lock-curator');
const jvms: CuratorWorker[] = [];
const sessions: ZkSession[] = [];

afterEach(async () => {
  await Promise.all(jvms.splice(0).map((jvm) => jvm.stop()));
  await Promise.all(sessions.splice(0).map((session) => session.close()));
});
afterAll(async () => {
  const session = await ZkSession.connect({ connectString: testConnectString() });
  for (const child of await childrenOf(session, root)) await session.delete(`${root}/${child}`).catch(() => undefined);
  await session.delete(root).catch(() => undefined);
  await session.close();
});

async function curator(args: string[]): Promise<CuratorWorker> {
  const jvm = await spawnCuratorWorker(['--session-timeout-ms', '4000', ...args]);
  jvms.push(jvm);
  return jvm;
}

describe("InterProcessReadWriteLock with naming: 'curator' and Curator's InterProcessReadWriteLock on one path", () => {
  it('Java and Node readers and writers: no write overlaps anything', async () => {
    const path = `${root}/mixed`;
    const startAt = String(Date.now() + 6000);
    const javaWriter = await curator(['--start-at', startAt, 'rw-write', testConnectString(), path, '8', '2']);
    const javaReader = await curator(['--start-at', startAt, 'rw-read', testConnectString(), path, '12', '2']);
    const node = (mode: 'read' | 'write', iterations: number) =>
      runNodeWorker(workerScript('rwWorker.ts'), [testConnectString(), path, mode, String(iterations), '2', 'curator', startAt]);
    const nodeOutputs = await Promise.all([node('write', 8), node('read', 12), node('read', 12)]);
    const javaOutputs = await Promise.all([javaWriter.finished(), javaReader.finished()]);

    const sections = sectionsOf([...nodeOutputs.flat(), ...javaOutputs.flat()]);
    expect(sections.filter((s) => s.worker.startsWith('java-'))).toHaveLength(20);
    expect(sections.filter((s) => s.worker.startsWith('node-'))).toHaveLength(32);
    expect(checkReadWrite(sections).writeOverlaps).toEqual([]);
  });

  it("Curator's writer respects our downgrade: it waits for the read node at our writer's place (CURATOR-621 across libraries)", async () => {
    const path = `${root}/downgrade`;
    const session = await ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs: 4000 });
    sessions.push(session);
    const rw = new InterProcessReadWriteLock(session, path, { naming: 'curator' });
    const write = await rw.writeLock().acquire();
    const javaWriter = await curator(['rw-write', testConnectString(), path, '1', '0']);
    // A JVM start on a busy 2-core machine can take long: wait for its node generously.
    await untilChildren(session, path, (children) => children.some((name) => name.includes('__WRIT__') && !write.path.endsWith(name)), 60_000);

    const read = await rw.readLock().acquire(); // downgrade
    await write.release();
    // Curator has re-listed and now waits for our read node (it would hold the lock otherwise).
    await untilWatched(testConnectString(), read.path);
    expect(javaWriter.sections()).toEqual([]);
    const readReleased = process.hrtime.bigint();
    await read.release();
    const [section] = sectionsOf(await javaWriter.finished());
    expect(section!.start).toBeGreaterThan(readReleased);
  });
});
