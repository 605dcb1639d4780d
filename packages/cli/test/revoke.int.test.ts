/**
 * `zk-recipes revoke`: Curator's revocation protocol from the command line. A holder that listens
 * releases and the lock changes hands; one that does not keeps it, and the CLI still says the
 * request was made. Nobody's node is deleted by the CLI.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REVOCATION_MARKER, ZkSession } from '@zk-recipes/core';
import { testConnectString, uniqueRoot, untilChildCount } from '@zk-recipes/testing';
import type { LockSnapshot } from '../src/index.js';
import { connectArgs, Contender, runCli } from './support/processes.js';

const root = uniqueRoot('cli-revoke');
let observer: ZkSession;
let contenders: Contender[] = [];

beforeAll(async () => {
  observer = await ZkSession.connect({ connectString: testConnectString() });
});
afterEach(async () => {
  await Promise.all(contenders.map((c) => c.stop()));
  contenders = [];
});
afterAll(async () => {
  await observer.close();
});

async function contender(...args: Parameters<typeof Contender.start>): Promise<Contender> {
  const started = await Contender.start(...args);
  contenders.push(started);
  return started;
}

describe('revoke', () => {
  it('reaches a holder that listens (acquire({ onRevoke }) releases): the lock changes hands', async () => {
    const path = `${root}/listens`;
    const holder = await contender(path, 'mutex', { onRevoke: true, label: 'polite' });
    const node = await holder.acquired();
    const waiter = await contender(path, 'mutex', { label: 'next' });
    await untilChildCount(observer, path, 2);

    const run = await runCli(['revoke', node, ...connectArgs()]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^revocation requested: wrote __REVOKE__ to ${node} \\(session ${holder.sessionId}, host .+ pid ${holder.pid} label polite\\)\\.\\n`));
    expect(run.stdout).toContain('nothing was deleted');

    await holder.process.waitForLine((l) => l.type === 'revoked');
    await holder.process.waitForLine((l) => l.type === 'released');
    const next = await waiter.acquired();
    expect(next).not.toBe(node);
    expect((await observer.getChildren(path)).children).toEqual([next.split('/').pop()]);
  });

  it('reaches a holder that does not listen: the request is written, the holder keeps the lock', async () => {
    const path = `${root}/ignores`;
    const holder = await contender(path, 'mutex', { label: 'stubborn' });
    const node = await holder.acquired();
    const waiter = await contender(path, 'mutex');
    await untilChildCount(observer, path, 2);

    const run = await runCli(['revoke', node, ...connectArgs()]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain(`revocation requested: wrote __REVOKE__ to ${node}`);
    // The request is there, in the holder's node, which is still there.
    const { data, stat } = await observer.getData(node);
    expect(data.toString('utf8')).toBe(REVOCATION_MARKER);
    expect(stat.ephemeralOwner.toString(16).padStart(16, '0')).toBe(holder.sessionId);
    // It still holds: inspect says so (its owner data is gone, replaced by the marker) ...
    const inspected = await runCli(['inspect', path, '--json', ...connectArgs()]);
    const snapshot = JSON.parse(inspected.stdout) as LockSnapshot;
    expect(snapshot.contenders.map((c) => [c.path, c.role, c.owner])).toEqual([
      [node, 'holder', null],
      [expect.any(String), 'waiter', expect.objectContaining({ label: null })],
    ]);
    // ... and the lock passes only when it releases of its own accord.
    await holder.release();
    expect(await waiter.acquired()).not.toBe(node);
  });

  it('no such node: NO_NODE, exit 1; a node that is not a lock node (a directory): NOT_A_LOCK_NODE, exit 1, nothing written', async () => {
    const missing = await runCli(['revoke', `${root}/nothing/_c_x-lock-0000000001`, ...connectArgs()]);
    expect(missing).toMatchObject({ exitCode: 1, stdout: '' });
    expect(missing.stderr).toBe(`zk-recipes: NO_NODE: no node at ${root}/nothing/_c_x-lock-0000000001: nothing to revoke\n`);

    const directory = `${root}/a-semaphore`;
    await observer.mkdirp(directory, 'persistent', { data: Buffer.from('3') });
    const refused = await runCli(['revoke', directory, ...connectArgs()]);
    expect(refused).toMatchObject({ exitCode: 1, stdout: '' });
    expect(refused.stderr).toMatch(/^zk-recipes: NOT_A_LOCK_NODE: .* is not a lock node/);
    expect((await observer.getData(directory)).data.toString('utf8')).toBe('3');
  });
});
