/**
 * `zk-recipes revoke`: Curator's revocation protocol from the command line. A holder that listens
 * releases and the lock changes hands; one that does not keeps it, and the CLI still says the
 * request was made. Nobody's node is deleted by the CLI.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REVOCATION_MARKER, ZkSession } from '@zk-recipes/core';
import { testConnectString, uniqueRoot, untilChildCount } from '@zk-recipes/testing';
import { revoke } from '../src/commands/revoke.js';
import type { Io, LockSnapshot } from '../src/index.js';
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

  it('no such node: NO_NODE, exit 1; a node that is not a lock node (a directory): NOT_A_LOCK_NODE, exit 2, nothing written', async () => {
    const missing = await runCli(['revoke', `${root}/nothing/_c_x-lock-0000000001`, ...connectArgs()]);
    expect(missing).toMatchObject({ exitCode: 1, stdout: '' });
    expect(missing.stderr).toBe(`zk-recipes: NO_NODE: no node at ${root}/nothing/_c_x-lock-0000000001: nothing to revoke\n`);

    const directory = `${root}/a-semaphore`;
    await observer.mkdirp(directory, 'persistent', { data: Buffer.from('3') });
    const refused = await runCli(['revoke', directory, ...connectArgs()]);
    expect(refused).toMatchObject({ exitCode: 2, stdout: '' });
    expect(refused.stderr).toMatch(/^zk-recipes: NOT_A_LOCK_NODE: .* is not a lock node/);
    expect((await observer.getData(directory)).data.toString('utf8')).toBe('3');
  });

  it('an ephemeral sequential node of no lock recipe (election members, a Curator LeaderLatch, a kind no recipe writes), or a persistent one: NOT_A_LOCK_NODE, exit 2, its data untouched', async () => {
    const member = Buffer.from(JSON.stringify({ leader: 'db-1', endpoint: 'db-1:5432' }));
    const nodes = [
      // ZooKeeper's election recipe, kazoo's lock and election, Curator's LeaderLatch, a near miss of our kinds.
      (await observer.create(`${await dir('election')}/n_`, member, { mode: 'ephemeral_sequential' })).path,
      (await observer.create(`${await dir('kazoo')}/${randomUUID().replaceAll('-', '')}__lock__`, member, { mode: 'ephemeral_sequential' })).path,
      (await observer.create(`${await dir('latch')}/_c_${randomUUID()}-latch-`, member, { mode: 'ephemeral_sequential' })).path,
      (await observer.create(`${await dir('near-miss')}/_c_${randomUUID()}-lease-w0-`, member, { mode: 'ephemeral_sequential' })).path,
      // A lock's name, but nobody's session: no lock recipe creates it.
      (await observer.create(`${await dir('persistent')}/_c_${randomUUID()}-lock-`, member, { mode: 'persistent_sequential' })).path,
    ];
    for (const node of nodes) {
      const before = await observer.getData(node);
      const run = await runCli(['revoke', node, ...connectArgs()]);
      expect(run, node).toMatchObject({ exitCode: 2, stdout: '' });
      expect(run.stderr, node).toMatch(/^zk-recipes: NOT_A_LOCK_NODE: .* is not a lock node/);
      const after = await observer.getData(node);
      expect(after.data.equals(member), node).toBe(true);
      expect(after.stat.version, node).toBe(before.stat.version);
    }
  });

  it("every recipe's node kinds, zk-recipes' and Curator's, are lock nodes: the request is written", async () => {
    for (const kind of ['lock-', 'read-', 'write-', '__READ__', '__WRIT__', 'lease-', 'lease-w3-']) {
      const node = (await observer.create(`${await dir(`kinds/${kind}`)}/_c_${randomUUID()}-${kind}`, null, { mode: 'ephemeral_sequential' })).path;
      const run = await runCli(['revoke', node, ...connectArgs()]);
      expect(run.exitCode, `${kind}: ${run.stderr}`).toBe(0);
      expect((await observer.getData(node)).data.toString('utf8')).toBe(REVOCATION_MARKER);
    }
  });

  it('the node it checked is the node it writes: a node changed between the check and the write is checked again', async () => {
    const directory = await dir('swapped');
    const node = (await observer.create(`${directory}/_c_${randomUUID()}-lock-`, null, { mode: 'ephemeral_sequential' })).path;
    const config = Buffer.from('{"replicas":3}');
    const other = await ZkSession.connect({ connectString: testConnectString() });
    try {
      // Between the CLI's read and its write, the lock node is deleted and a persistent node of
      // the same name takes its place, then is written (a real interleaving on the real server).
      let swapped = false;
      const session = new Proxy(observer, {
        get(target, property) {
          if (property === 'getData') {
            return async (path: string, watcher?: never) => {
              const read = await target.getData(path, watcher);
              if (!swapped) {
                swapped = true;
                await other.delete(node);
                await other.create(node, Buffer.from('{}'), { mode: 'persistent' });
                await other.setData(node, config);
              }
              return read;
            };
          }
          const value: unknown = Reflect.get(target, property);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const parsed = revoke.parse([node]);
      if (parsed.help === true) throw new Error('parsed as --help');
      const written: string[] = [];
      const io: Io = { stdout: { write: (text: string) => written.push(text) }, stderr: { write: (text: string) => written.push(text) }, env: {}, signal: new AbortController().signal };
      await expect(parsed.run(session, io)).rejects.toMatchObject({ code: 'NOT_A_LOCK_NODE' });
      expect(swapped).toBe(true);
      expect(written).toEqual([]);
      expect((await other.getData(node)).data.equals(config)).toBe(true);
      await other.delete(node);
    } finally {
      await other.close();
    }
  });
});

async function dir(name: string): Promise<string> {
  const path = `${root}/${name}`;
  await observer.mkdirp(path);
  return path;
}
