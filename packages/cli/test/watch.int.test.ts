/**
 * `zk-recipes inspect --watch`: a new snapshot on every change, driven by ZooKeeper watches. The
 * test waits for the snapshots the CLI prints (each a reaction to an event), never for a timer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ZkSession } from '@zk-recipes/core';
import { TestingServer, uniqueRoot } from '@zk-recipes/testing';
import type { LockSnapshot } from '../src/index.js';
import { connectArgs, Contender, startCli, type LineProcess } from './support/processes.js';

const root = uniqueRoot('cli-watch');
let running: Array<Contender | LineProcess> = [];

afterEach(async () => {
  await Promise.all(running.map((p) => p.stop()));
  running = [];
});

const roles = (snapshot: Record<string, unknown>) => (snapshot as unknown as LockSnapshot).contenders.map((c) => `${c.sessionId}:${c.role}`);

describe('inspect --watch', () => {
  it('sees a hand-off: the holder releases, the next snapshot shows the waiter as holder; Ctrl-C ends it with 0', async () => {
    const path = `${root}/handoff`;
    const holder = await Contender.start(path, 'mutex', { label: 'first' });
    running.push(holder);
    await holder.acquired();
    const waiter = await Contender.start(path, 'mutex', { label: 'second' });
    running.push(waiter);

    const cli = startCli(['inspect', path, '--watch', '--json', ...connectArgs()]);
    running.push(cli);
    // Whatever it printed before (the waiter may still be enqueueing), a snapshot with both.
    await cli.waitForLine((s) => roles(s).join() === `${holder.sessionId}:holder,${waiter.sessionId}:waiter`);
    const before = cli.lines.length;

    await holder.release();
    // Nothing changed between that snapshot and the release: the next one is the hand-off.
    const after = (await cli.waitForLine(() => true, before)) as unknown as LockSnapshot;
    expect(roles(after as never)).toEqual([`${waiter.sessionId}:holder`]);
    expect(after.contenders[0]!.owner?.label).toBe('second');
    await waiter.acquired();
    // Every line is one whole snapshot of the documented format.
    for (const line of cli.lines) expect(line).toMatchObject({ format: 1, path, exists: true });

    await waiter.release();
    await cli.waitForLine((s) => (s as unknown as LockSnapshot).contenders.length === 0, before);
    cli.child.kill('SIGINT');
    expect((await cli.exited).exitCode).toBe(0);
    expect(cli.stderr).toBe('');
  });

  it('text: a snapshot per change, each under the time it was read; a lock that does not exist yet is waited for', async () => {
    const path = `${root}/appears`;
    const cli = startCli(['inspect', path, '--watch', ...connectArgs()]);
    running.push(cli);
    const stdoutHas = (text: string) =>
      new Promise<void>((resolve, reject) => {
        const check = () => (cli.stdout.includes(text) ? resolve() : cli.running ? undefined : reject(new Error(cli.describe())));
        cli.child.stdout!.on('data', () => setImmediate(check));
        check();
      });
    await stdoutHas(`${path}: no such node (waiting for it to appear)`);
    const holder = await Contender.start(path, 'mutex', { label: 'late' });
    running.push(holder);
    await holder.acquired();
    await stdoutHas(`${path}: mutex, 1 holder, 0 waiters`);
    expect(cli.stdout).toMatch(/^--- \d{4}-\d\d-\d\dT[\d:.]+Z\n/);
    cli.child.kill('SIGINT');
    expect((await cli.exited).exitCode).toBe(0);
  });

  it('says the view is stale as soon as the connection is lost, and exits 1 once the session is (its watches went with it)', async () => {
    const server = await TestingServer.start({ forceSync: false });
    const session = await ZkSession.connect({ connectString: server.connectString });
    try {
      await session.create('/watched', null);
      await session.create('/watched/_c_0f1c0d2e-1111-4111-8111-111111111111-lock-0000000000', null, { mode: 'ephemeral' });
      const cli = startCli(['inspect', '/watched', '--watch', '--json', '--connect', server.connectString, '--session-timeout', '4000']);
      running.push(cli);
      await cli.waitForLine((s) => (s as unknown as LockSnapshot).contenders.length === 1);
      await server.kill(); // the server goes away: the holder shown may be gone any moment now
      const { exitCode } = await cli.exited;
      expect(exitCode).toBe(1);
      expect(cli.stderr).toMatch(/zk-recipes: the connection to ZooKeeper was lost at \d{4}-\d\d-\d\dT[\d:.]+Z: the view is stale until it is back/);
      expect(cli.stderr).toMatch(/SESSION_LOST: inspect --watch: the ZooKeeper session was lost, and every watch with it/);
      // In that order: told first, then ended.
      expect(cli.stderr.indexOf('stale')).toBeLessThan(cli.stderr.indexOf('SESSION_LOST'));
    } finally {
      await session.close();
      await server.stop();
    }
  });
});
