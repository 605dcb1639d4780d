/**
 * `zk-recipes inspect` against a real server, run as a user runs it (its own process): every
 * contender of a mutex whose holder and waiters are other processes, of a read/write lock with
 * readers sharing, of a semaphore in both layouts; text and `--json`.
 */
import { hostname } from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { encodeOwnerData, ZkSession } from '@zk-recipes/core';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { InterProcessSemaphore, SharedCount, type Lease } from '@zk-recipes/semaphore';
import { LeaderLatch, LeaderSelector } from '@zk-recipes/leader';
import { spawnCuratorWorker, testConnectString, uniqueRoot, untilChildCount } from '@zk-recipes/testing';
import type { LockSnapshot } from '../src/index.js';
import { connectArgs, Contender, runCli } from './support/processes.js';

const root = uniqueRoot('cli-inspect');
let observer: ZkSession;
let contenders: Contender[] = [];
let sessions: ZkSession[] = [];

beforeAll(async () => {
  observer = await ZkSession.connect({ connectString: testConnectString() });
});
afterEach(async () => {
  await Promise.all(contenders.map((c) => c.stop()));
  await Promise.all(sessions.map((s) => s.close()));
  contenders = [];
  sessions = [];
});
afterAll(async () => {
  await observer.close();
});

async function contender(...args: Parameters<typeof Contender.start>): Promise<Contender> {
  const started = await Contender.start(...args);
  contenders.push(started);
  return started;
}

async function session(): Promise<ZkSession> {
  const opened = await ZkSession.connect({ connectString: testConnectString() });
  sessions.push(opened);
  return opened;
}

/** Owner data as the engine will write it, for this (the test) process. */
const ours = (label: string) => encodeOwnerData({ host: hostname(), pid: process.pid, label });

async function inspectJson(path: string, ...extra: string[]): Promise<LockSnapshot> {
  const run = await runCli(['inspect', path, '--json', ...connectArgs(), ...extra]);
  expect(run.exitCode, run.stderr).toBe(0);
  expect(run.stdout.trimEnd().split('\n'), 'one JSON line').toHaveLength(1);
  return JSON.parse(run.stdout) as LockSnapshot;
}

async function inspectText(path: string, ...extra: string[]): Promise<string[]> {
  const run = await runCli(['inspect', path, ...connectArgs(), ...extra]);
  expect(run.exitCode, run.stderr).toBe(0);
  return run.stdout.trimEnd().split('\n');
}

/** The cells of a table row (columns are three spaces apart, cells have none). */
const cells = (row: string) => row.split(/ {2,}/);

describe('inspect: a mutex held by one process, two other processes waiting', () => {
  it('lists holder then waiters in queue order, with each one\'s session, age and owner (none for a node without owner data)', async () => {
    const path = `${root}/mutex`;
    const holder = await contender(path, 'mutex', { label: 'billing-holder' });
    const holderNode = await holder.acquired();
    const first = await contender(path, 'mutex', { label: 'billing-waiter' });
    await untilChildCount(observer, path, 2);
    const second = await contender(path, 'mutex', { owner: false });
    await untilChildCount(observer, path, 3);

    const snapshot = await inspectJson(path);
    expect(snapshot).toMatchObject({ format: 1, path, exists: true, recipe: 'mutex', layout: null, maxLeases: null, holders: 1, waiters: 2 });
    expect(Date.parse(snapshot.takenAt)).not.toBeNaN();
    const [h, w1, w2] = snapshot.contenders;
    expect(snapshot.contenders).toHaveLength(3);
    expect(h).toMatchObject({ path: holderNode, kind: 'lock', role: 'holder', leases: null, sessionId: holder.sessionId, owner: { host: hostname(), pid: holder.pid, label: 'billing-holder' } });
    expect(h!.node).toBe(holderNode.split('/').pop());
    expect(w1).toMatchObject({ kind: 'lock', role: 'waiter', sessionId: first.sessionId, owner: { host: hostname(), pid: first.pid, label: 'billing-waiter' } });
    expect(w2).toMatchObject({ kind: 'lock', role: 'waiter', sessionId: second.sessionId, owner: null });
    expect(h!.sequence).toBeLessThan(w1!.sequence);
    expect(w1!.sequence).toBeLessThan(w2!.sequence);
    for (const c of snapshot.contenders) {
      expect(c.node).toMatch(/^_c_[0-9a-f-]{36}-lock-\d{10}$/);
      expect(c.ageMs).toBeGreaterThanOrEqual(0);
      expect(Date.parse(snapshot.takenAt) - Date.parse(c.createdAt)).toBe(c.ageMs);
    }
    // The documented key order.
    expect(Object.keys(h!)).toEqual(['node', 'path', 'sequence', 'kind', 'role', 'leases', 'sessionId', 'createdAt', 'ageMs', 'owner', 'id']);
    expect(Object.keys(snapshot)).toEqual(['format', 'path', 'takenAt', 'exists', 'recipe', 'layout', 'maxLeases', 'leader', 'holders', 'waiters', 'contenders']);

    const text = await inspectText(path);
    expect(text[0]).toBe(`${path}: mutex, 1 holder, 2 waiters`);
    expect(cells(text[1]!)).toEqual(['NODE', 'KIND', 'ROLE', 'SESSION', 'AGE', 'HOST', 'PID', 'LABEL']);
    expect(text).toHaveLength(5);
    const rows = text.slice(2).map(cells);
    expect(rows.map((r) => [r[0], r[1], r[2], r[3], r[5], r[6], r[7]])).toEqual([
      [h!.node, 'lock', 'holder', holder.sessionId, hostname(), String(holder.pid), 'billing-holder'],
      [w1!.node, 'lock', 'waiter', first.sessionId, hostname(), String(first.pid), 'billing-waiter'],
      [w2!.node, 'lock', 'waiter', second.sessionId, '-', '-', '-'],
    ]);
    for (const row of rows) expect(row[4]).toMatch(/^\d+(ms|s)$|^\d+m\d\ds$/);
    // The columns line up.
    const at = text[1]!.indexOf('SESSION');
    for (const row of text.slice(2)) expect(row.slice(at, at + 16)).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('inspect: a read/write lock', () => {
  it('readers holding together, a writer waiting behind them, and a reader behind the writer waiting too', async () => {
    const path = `${root}/rw`;
    const [s1, s2, s3, s4] = await Promise.all([session(), session(), session(), session()]);
    const r1 = await new InterProcessReadWriteLock(s1, path, { data: ours('reader-1') }).readLock().acquire();
    const r2 = await new InterProcessReadWriteLock(s2, path, { data: ours('reader-2') }).readLock().acquire();
    const writing = new InterProcessReadWriteLock(s3, path, { data: ours('writer') }).writeLock().acquire();
    await untilChildCount(observer, path, 3);
    const reading = new InterProcessReadWriteLock(s4, path).readLock().acquire();
    await untilChildCount(observer, path, 4);

    const snapshot = await inspectJson(path);
    expect(snapshot).toMatchObject({ recipe: 'read-write-lock', layout: 'zk-recipes', holders: 2, waiters: 2 });
    expect(snapshot.contenders.map((c) => [c.kind, c.role, c.sessionId, c.owner?.label ?? null])).toEqual([
      ['read', 'holder', s1.sessionId, 'reader-1'],
      ['read', 'holder', s2.sessionId, 'reader-2'],
      ['write', 'waiter', s3.sessionId, 'writer'],
      ['read', 'waiter', s4.sessionId, null],
    ]);
    expect(snapshot.contenders.slice(0, 2).map((c) => c.path)).toEqual([r1.path, r2.path]);

    const text = await inspectText(path);
    expect(text[0]).toBe(`${path}: read-write-lock (zk-recipes layout), 2 holders, 2 waiters`);
    expect(text.slice(2).map((row) => cells(row).slice(1, 3))).toEqual([
      ['read', 'holder'],
      ['read', 'holder'],
      ['write', 'waiter'],
      ['read', 'waiter'],
    ]);
    await r1.release();
    await r2.release();
    await (await writing).release();
    await (await reading).release();
  });

  it("Curator's names (__READ__, __WRIT__): a writer holding, readers waiting", async () => {
    const path = `${root}/rw-curator`;
    const [s1, s2] = await Promise.all([session(), session()]);
    const writer = await new InterProcessReadWriteLock(s1, path, { naming: 'curator' }).writeLock().acquire();
    const reading = new InterProcessReadWriteLock(s2, path, { naming: 'curator' }).readLock().acquire();
    await untilChildCount(observer, path, 2);
    const snapshot = await inspectJson(path);
    expect(snapshot).toMatchObject({ recipe: 'read-write-lock', layout: 'curator', holders: 1, waiters: 1 });
    expect(snapshot.contenders.map((c) => [c.kind, c.role])).toEqual([
      ['write', 'holder'],
      ['read', 'waiter'],
    ]);
    expect(snapshot.contenders[0]!.node).toMatch(/-__WRIT__\d{10}$/);
    await writer.release();
    await (await reading).release();
  });
});

describe('inspect: a semaphore', () => {
  it('queue layout: the leases each node holds or asks for, against the maxLeases its directory records', async () => {
    const path = `${root}/semaphore`;
    const [s1, s2, s3] = await Promise.all([session(), session(), session()]);
    const semaphore = (s: ZkSession, label: string) => new InterProcessSemaphore(s, path, { maxLeases: 3, data: ours(label) });
    const two = await semaphore(s1, 'two').acquireMany(2);
    const one = await semaphore(s2, 'one').acquire();
    const waiting = semaphore(s3, 'asks-two').acquireMany(2);
    await untilChildCount(observer, path, 3);

    const snapshot = await inspectJson(path);
    expect(snapshot).toMatchObject({ recipe: 'semaphore', layout: 'queue', maxLeases: 3, holders: 2, waiters: 1 });
    expect(snapshot.contenders.map((c) => [c.kind, c.role, c.leases, c.owner?.label])).toEqual([
      ['lease', 'holder', 2, 'two'],
      ['lease', 'holder', 1, 'one'],
      ['lease', 'waiter', 2, 'asks-two'],
    ]);

    const text = await inspectText(path);
    expect(text[0]).toBe(`${path}: semaphore (queue layout), maxLeases 3, 2 holders, 1 waiter`);
    expect(cells(text[1]!)).toEqual(['NODE', 'KIND', 'ROLE', 'LEASES', 'SESSION', 'AGE', 'HOST', 'PID', 'LABEL']);
    expect(text.slice(2).map((row) => cells(row).slice(1, 4))).toEqual([
      ['lease', 'holder', '2'],
      ['lease', 'holder', '1'],
      ['lease', 'waiter', '2'],
    ]);
    // --max-leases overrides the record: with 5, the waiter fits.
    expect((await inspectJson(path, '--max-leases', '5')).contenders.map((c) => c.role)).toEqual(['holder', 'holder', 'holder']);

    for (const lease of two) await lease.release();
    await one.release();
    for (const lease of await waiting) await lease.release();
  });

  it('a maximum from a SharedCount: roles unknown until --count names its node', async () => {
    const path = `${root}/semaphore-counted`;
    const countPath = `${root}/semaphore-count`;
    const [s1, s2] = await Promise.all([session(), session()]);
    const count = new SharedCount(s1, countPath, { seedValue: 1 });
    const held = await new InterProcessSemaphore(s1, path, { count }).acquire();
    const waiting = new InterProcessSemaphore(s2, path, { count: new SharedCount(s2, countPath, { seedValue: 1 }) }).acquire();
    await untilChildCount(observer, path, 2);

    const unknown = await inspectJson(path);
    expect(unknown).toMatchObject({ recipe: 'semaphore', layout: 'queue', maxLeases: null, holders: 0, waiters: 0 });
    expect(unknown.contenders.map((c) => c.role)).toEqual(['unknown', 'unknown']);
    expect((await inspectText(path))[0]).toBe(`${path}: semaphore (queue layout), maxLeases unknown (give --max-leases or --count), 0 holders, 0 waiters`);
    const counted = await inspectJson(path, '--count', countPath);
    expect(counted).toMatchObject({ maxLeases: 1, holders: 1, waiters: 1 });
    expect(counted.contenders.map((c) => c.role)).toEqual(['holder', 'waiter']);

    await held.release();
    await (await waiting).release();
    count.close();
  });

  it("Curator's layout: lease nodes under leases/, and the internal lock its waiter holds under locks/", async () => {
    const path = `${root}/semaphore-curator`;
    const [s1, s2] = await Promise.all([session(), session()]);
    const semaphore = (s: ZkSession, label: string) => new InterProcessSemaphore(s, path, { maxLeases: 1, layout: 'curator', data: ours(label) });
    const held: Lease = await semaphore(s1, 'holder').acquire();
    const waiting = semaphore(s2, 'waiter').acquire();
    await untilChildCount(observer, `${path}/leases`, 2);

    const snapshot = await inspectJson(path);
    expect(snapshot).toMatchObject({ recipe: 'semaphore', layout: 'curator', maxLeases: 1, holders: 1, waiters: 1 });
    expect(snapshot.contenders.map((c) => [c.node.split('/')[0], c.kind, c.role, c.leases, c.sessionId, c.owner?.label ?? null])).toEqual([
      ['leases', 'lease', 'holder', 1, s1.sessionId, 'holder'],
      ['leases', 'lease', 'waiter', 1, s2.sessionId, 'waiter'],
      // The internal lock carries no data of the caller's.
      ['locks', 'lock', 'holder', null, s2.sessionId, null],
    ]);
    expect(snapshot.contenders[0]!.path).toBe(held.path);

    const text = await inspectText(path);
    expect(text[0]).toBe(`${path}: semaphore (curator layout), maxLeases 1, 1 holder, 1 waiter`);
    await held.release();
    await (await waiting).release();
  });
});

describe('inspect: leader elections', () => {
  it("a LeaderLatch's election: the leader and the participants in order, each with its id; one whose id is its owner data by its owner", async () => {
    const path = `${root}/latch`;
    const latches: LeaderLatch[] = [];
    for (const id of ['scheduler-a', undefined, 'scheduler-c']) {
      const labelled = await ZkSession.connect({ connectString: testConnectString(), label: 'scheduler' });
      sessions.push(labelled);
      const latch = new LeaderLatch(labelled, path, id === undefined ? {} : { id });
      latch.start();
      latches.push(latch);
      await untilChildCount(observer, path, latches.length);
    }
    await latches[0]!.leadership();
    const snapshot = await inspectJson(path);
    expect(snapshot).toMatchObject({ recipe: 'leader-latch', layout: null, maxLeases: null, leader: 'scheduler-a', holders: 1, waiters: 2 });
    expect(snapshot.contenders.map((c) => [c.kind, c.role, c.id, c.owner?.label ?? null])).toEqual([
      ['latch', 'holder', 'scheduler-a', null],
      ['latch', 'waiter', latches[1]!.id, 'scheduler'],
      ['latch', 'waiter', 'scheduler-c', null],
    ]);
    const [heading, header, ...rows] = await inspectText(path);
    expect(heading).toBe(`${path}: leader election (LeaderLatch), leader scheduler-a, 3 participants`);
    expect(cells(header!)).toEqual(['NODE', 'KIND', 'ROLE', 'ID', 'SESSION', 'AGE', 'HOST', 'PID', 'LABEL']);
    expect(rows.map((row) => cells(row).slice(1, 4))).toEqual([
      ['latch', 'leader', 'scheduler-a'],
      ['latch', 'participant', '-'],
      ['latch', 'participant', 'scheduler-c'],
    ]);
    expect(cells(rows[1]!).slice(-2)).toEqual([String(process.pid), 'scheduler']);
    // The leader goes; its successor is named by its owner (its id is owner data).
    await latches[0]!.close();
    await latches[1]!.leadership();
    expect((await inspectText(path))[0]).toBe(`${path}: leader election (LeaderLatch), leader ${hostname()} pid ${process.pid} (scheduler), 2 participants`);
    await Promise.all(latches.map((l) => l.close()));
  });

  it('a participant given an id and ownerData: ID shows the id, HOST, PID and LABEL its owner', async () => {
    const path = `${root}/latch-owner-beside-id`;
    const labelled = await ZkSession.connect({ connectString: testConnectString(), label: 'scheduler' });
    sessions.push(labelled);
    const latch = new LeaderLatch(labelled, path, { id: 'scheduler-d', ownerData: true });
    latch.start();
    await latch.leadership();
    const snapshot = await inspectJson(path);
    expect(snapshot).toMatchObject({ recipe: 'leader-latch', leader: 'scheduler-d' });
    expect(snapshot.contenders.map((c) => [c.role, c.id, c.owner])).toEqual([['holder', 'scheduler-d', { host: hostname(), pid: process.pid, label: 'scheduler' }]]);
    const [heading, , row] = await inspectText(path);
    expect(heading).toBe(`${path}: leader election (LeaderLatch), leader scheduler-d, 1 participant`);
    expect(cells(row!).slice(2, 4)).toEqual(['leader', 'scheduler-d']);
    expect(cells(row!).slice(-3)).toEqual([hostname(), String(process.pid), 'scheduler']);
    await latch.close();
  });

  it("a LeaderSelector's election is a mutex's queue: with --election it is shown as one, with ids", async () => {
    const path = `${root}/selector`;
    const selectors = [new LeaderSelector(await session(), path, { id: 'worker-a' }), new LeaderSelector(await session(), path, { id: 'worker-b' })];
    let release = (): void => undefined;
    const leading = new Promise<void>((resolve) => (release = resolve));
    const runs: Array<Promise<void>> = [];
    for (const selector of selectors) {
      runs.push(selector.run(() => leading));
      await untilChildCount(observer, path, runs.length);
    }
    expect(await inspectJson(path)).toMatchObject({ recipe: 'mutex', leader: null, contenders: [{ kind: 'lock', id: null }, { kind: 'lock', id: null }] });
    const snapshot = await inspectJson(path, '--election');
    expect(snapshot).toMatchObject({ recipe: 'leader-selector', layout: null, leader: 'worker-a', holders: 1, waiters: 1 });
    expect(snapshot.contenders.map((c) => [c.kind, c.role, c.id])).toEqual([
      ['lock', 'holder', 'worker-a'],
      ['lock', 'waiter', 'worker-b'],
    ]);
    expect((await inspectText(path, '--election'))[0]).toBe(`${path}: leader election (LeaderSelector), leader worker-a, 2 participants`);
    release();
    await Promise.all(runs);
    await Promise.all(selectors.map((s) => s.close()));
  });

  it("Curator's LeaderLatch: its participants read the same, with the ids it wrote", async () => {
    const path = `${root}/curator-latch`;
    const java = await spawnCuratorWorker(['leader-latch', testConnectString(), path, 'java-leader', '0']);
    try {
      await java.waitForLine((line) => line.type === 'leader');
      const latch = new LeaderLatch(await session(), path, { id: 'node-follower' });
      latch.start();
      await untilChildCount(observer, path, 2);
      expect(await inspectJson(path)).toMatchObject({ recipe: 'leader-latch', leader: 'java-leader', contenders: [{ kind: 'latch', role: 'holder', id: 'java-leader', owner: null }, { kind: 'latch', role: 'waiter', id: 'node-follower' }] });
      await latch.close();
    } finally {
      java.child.stdin!.write('stop\n');
      await java.finished();
    }
  });
});

describe('inspect: what is not a lock with contenders', () => {
  it('an empty lock directory: no contenders (exit 0); a directory of directories or a lock node: NOT_A_LOCK (exit 1); no node: NO_NODE (exit 1)', async () => {
    await observer.mkdirp(`${root}/parent/empty`);
    expect(await inspectText(`${root}/parent/empty`)).toEqual([`${root}/parent/empty: no contenders`]);
    expect(await inspectJson(`${root}/parent/empty`)).toMatchObject({ exists: true, recipe: null, holders: 0, waiters: 0, contenders: [] });

    const parent = await runCli(['inspect', `${root}/parent`, ...connectArgs()]);
    expect(parent.exitCode).toBe(1);
    expect(parent.stdout).toBe('');
    expect(parent.stderr).toMatch(/^zk-recipes: NOT_A_LOCK: .* is not a lock: .*zk-recipes ls/);

    // A lock node given for its lock: told which path to inspect.
    const holder = await contender(`${root}/parent/held`, 'mutex');
    const node = await holder.acquired();
    const ofNode = await runCli(['inspect', node, ...connectArgs()]);
    expect(ofNode).toMatchObject({ exitCode: 1, stdout: '' });
    expect(ofNode.stderr).toBe(`zk-recipes: NOT_A_LOCK: ${node} is a lock node, not a lock: \`zk-recipes inspect ${root}/parent/held\` shows its lock\n`);

    const missing = await runCli(['inspect', `${root}/nothing-here`, ...connectArgs()]);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toBe(`zk-recipes: NO_NODE: no node at ${root}/nothing-here\n`);
  });
});
