/**
 * The diagnostics channels against a real server (docs/observability.md, "Diagnostics channels"):
 * every acquisition of every recipe is one trace with its outcome, every release that deletes a
 * node and every loss of a held node is one message, every state of a session is told in order.
 */
import diagnostics from 'node:diagnostics_channel';
import {
  ACQUIRE_CHANNEL,
  LOST_CHANNEL,
  RELEASE_CHANNEL,
  SESSION_CHANNEL,
  ZkSession,
  type AcquireContext,
  type LostMessage,
  type ReleaseMessage,
  type SessionMessage,
} from '@zk-recipes/core';
import { sessionInternals } from '@zk-recipes/core/internal';
import { InterProcessMultiLock } from '@zk-recipes/multi-lock';
import { InterProcessMutex, InterProcessSemaphoreMutex } from '@zk-recipes/mutex';
import { InterProcessReadWriteLock } from '@zk-recipes/read-write-lock';
import { InterProcessSemaphore } from '@zk-recipes/semaphore';
import { expireSession, FaultProxy, nodeScriptArgs, testConnectString, uniqueRoot, untilChildCount } from '@zk-recipes/testing';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const root = uniqueRoot('channels');
const DEBUG_WORKER = fileURLToPath(new URL('./workers/debugRun.ts', import.meta.url));
/** Runs the debug worker with `env`; rejects (with its output) unless it exits with 0. */
const runDebugWorker = (path: string, env: NodeJS.ProcessEnv) =>
  promisify(execFile)(process.execPath, [...nodeScriptArgs(DEBUG_WORKER), testConnectString(), path], { env, timeout: 30_000, encoding: 'utf8' });
const sessions: ZkSession[] = [];
let counter = 0;
const dir = (name: string): string => `${root}/${++counter}-${name}`;

async function connect(connectString = testConnectString()): Promise<ZkSession> {
  const session = await ZkSession.connect({ connectString, sessionTimeoutMs: 4_000 });
  sessions.push(session);
  return session;
}

/** What the channels told during one test (only this test's paths: `root`). */
interface Heard {
  /** Every trace event as `<event> <recipe> <outcome>`. */
  events: string[];
  /** Each trace's context, once, at its asyncEnd (or its synchronous end). */
  done: AcquireContext[];
  releases: ReleaseMessage[];
  losses: LostMessage[];
}

let heard: Heard;
let unsubscribe: () => void;

beforeEach(() => {
  const h: Heard = { events: [], done: [], releases: [], losses: [] };
  heard = h;
  const ours = (path: string) => path.startsWith(root);
  const on = (event: string) => (context: AcquireContext) => {
    if (!ours(context.path)) return;
    h.events.push(`${event} ${context.recipe}${context.outcome === undefined ? '' : ` ${context.outcome}`}`);
    if (event === 'asyncEnd') h.done.push(context);
  };
  const tracing = { start: on('start'), end: on('end'), asyncStart: on('asyncStart'), asyncEnd: on('asyncEnd'), error: on('error') };
  const onRelease = (message: unknown) => ours((message as ReleaseMessage).path) && h.releases.push(message as ReleaseMessage);
  const onLost = (message: unknown) => ours((message as LostMessage).path) && h.losses.push(message as LostMessage);
  const acquire = diagnostics.tracingChannel<AcquireContext, AcquireContext>(ACQUIRE_CHANNEL);
  acquire.subscribe(tracing);
  diagnostics.subscribe(RELEASE_CHANNEL, onRelease);
  diagnostics.subscribe(LOST_CHANNEL, onLost);
  unsubscribe = () => {
    acquire.unsubscribe(tracing);
    diagnostics.unsubscribe(RELEASE_CHANNEL, onRelease);
    diagnostics.unsubscribe(LOST_CHANNEL, onLost);
  };
});
afterEach(() => unsubscribe());

let session: ZkSession;
let other: ZkSession;
beforeAll(async () => {
  session = await connect();
  other = await connect();
});
afterAll(async () => {
  await Promise.all(sessions.map((s) => s.close()));
});

/** The one finished trace whose outcome is `outcome` (fails if there is not exactly one). */
function only(outcome: string, recipe?: string): AcquireContext {
  const found = heard.done.filter((context) => context.outcome === outcome && (recipe === undefined || context.recipe === recipe));
  expect(found, `${outcome} traces of ${recipe ?? 'any recipe'}`).toHaveLength(1);
  return found[0]!;
}

/** An abort after `ms`, for a wait that never ends by itself. */
const abortAfter = (ms: number): AbortSignal => AbortSignal.timeout(ms);

describe('zk-recipes:acquire', () => {
  it('InterProcessMutex: granted, re-entered, tryAcquire null (timeout), acquire LOCK_TIMEOUT, aborted', async () => {
    const path = dir('mutex');
    const mutex = new InterProcessMutex(session, path);
    const handle = await mutex.acquire({ timeoutMs: 5_000 });
    const inner = await mutex.acquire();
    await inner.release();
    const rival = new InterProcessMutex(other, path);
    expect(await rival.tryAcquire()).toBeNull();
    await expect(rival.acquire({ timeoutMs: 50 })).rejects.toMatchObject({ code: 'LOCK_TIMEOUT' });
    await expect(rival.acquire({ signal: abortAfter(50) })).rejects.toMatchObject({ code: 'ABORTED' });
    await handle.release();

    const granted = only('granted');
    expect(granted).toMatchObject({ recipe: 'mutex', path, kind: 'lock', sessionId: session.sessionId, timeoutMs: 5_000, node: handle.path, fencingToken: handle.fencingToken });
    expect(granted.waitMs).toBeGreaterThanOrEqual(0);
    expect(granted.error).toBeUndefined();
    expect(only('reentered')).toMatchObject({ node: handle.path, fencingToken: handle.fencingToken, sessionId: session.sessionId });
    const timeouts = heard.done.filter((context) => context.outcome === 'timeout');
    expect(timeouts.map((context) => [context.sessionId, context.timeoutMs, context.error === undefined, context.node])).toEqual([
      [other.sessionId, 0, true, undefined], // tryAcquire: an outcome, no error
      [other.sessionId, 50, false, undefined],
    ]);
    expect(timeouts[1]!.waitMs).toBeGreaterThanOrEqual(49);
    expect(only('aborted')).toMatchObject({ error: expect.objectContaining({ code: 'ABORTED' }) });
    expect(heard.events).toEqual([
      ...['start mutex', 'end mutex', 'asyncStart mutex granted', 'asyncEnd mutex granted'],
      ...['start mutex', 'end mutex', 'asyncStart mutex reentered', 'asyncEnd mutex reentered'],
      ...['start mutex', 'end mutex', 'asyncStart mutex timeout', 'asyncEnd mutex timeout'],
      ...['start mutex', 'end mutex', 'error mutex timeout', 'asyncStart mutex timeout', 'asyncEnd mutex timeout'],
      ...['start mutex', 'end mutex', 'error mutex aborted', 'asyncStart mutex aborted', 'asyncEnd mutex aborted'],
    ]);
    // One release: the node's, not the re-entry's.
    expect(heard.releases).toEqual([{ recipe: 'mutex', path, node: handle.path, sessionId: session.sessionId, holdMs: expect.any(Number), outcome: 'released' }]);
  });

  it('InterProcessSemaphoreMutex: its own recipe name; a second acquire by the holder times out', async () => {
    const path = dir('semaphore-mutex');
    const mutex = new InterProcessSemaphoreMutex(session, path);
    const handle = await mutex.acquire();
    await expect(mutex.acquire({ timeoutMs: 50 })).rejects.toMatchObject({ code: 'LOCK_TIMEOUT' });
    await handle.release();
    expect(only('granted')).toMatchObject({ recipe: 'semaphore-mutex', kind: 'lock', node: handle.path });
    expect(only('timeout')).toMatchObject({ recipe: 'semaphore-mutex', error: expect.objectContaining({ code: 'LOCK_TIMEOUT' }) });
    expect(heard.releases.map((m) => [m.recipe, m.node])).toEqual([['semaphore-mutex', handle.path]]);
  });

  it('read/write lock: write and read granted (the read by downgrade), re-entered, timed out, aborted', async () => {
    const path = dir('rw');
    const rw = new InterProcessReadWriteLock(session, path);
    const write = await rw.writeLock().acquire();
    const read = await rw.readLock().acquire(); // the writer's downgrade
    const readAgain = await rw.readLock().acquire();
    const rival = new InterProcessReadWriteLock(other, path);
    expect(await rival.writeLock().tryAcquire()).toBeNull();
    await write.release();
    await expect(rival.writeLock().acquire({ timeoutMs: 50 })).rejects.toMatchObject({ code: 'LOCK_TIMEOUT' });
    const waitingWriter = rival.writeLock().acquire({ timeoutMs: 10_000 });
    await untilChildCount(other, path, 2);
    await expect(rival.readLock().acquire({ signal: abortAfter(50) })).rejects.toMatchObject({ code: 'ABORTED' });
    await readAgain.release();
    await read.release();
    const writer = await waitingWriter;
    await writer.release();

    expect(heard.done.filter((c) => c.outcome === 'granted').map((c) => [c.recipe, c.kind, c.node])).toEqual([
      ['write-lock', 'write', write.path],
      ['read-lock', 'read', read.path],
      ['write-lock', 'write', writer.path],
    ]);
    expect(only('reentered')).toMatchObject({ recipe: 'read-lock', kind: 'read', node: read.path });
    expect(heard.done.filter((c) => c.outcome === 'timeout').map((c) => [c.recipe, c.timeoutMs, c.error === undefined])).toEqual([
      ['write-lock', 0, true],
      ['write-lock', 50, false],
    ]);
    expect(only('aborted')).toMatchObject({ recipe: 'read-lock', kind: 'read', sessionId: other.sessionId });
    expect(heard.releases.map((m) => [m.recipe, m.node])).toEqual([
      ['write-lock', write.path],
      ['read-lock', read.path],
      ['write-lock', writer.path],
    ]);
  });

  it('InterProcessSemaphore: leases granted (their count in the context), tryAcquire null, LOCK_TIMEOUT, aborted', async () => {
    const path = dir('semaphore');
    const semaphore = new InterProcessSemaphore(session, path, { maxLeases: 2 });
    const leases = await semaphore.acquireMany(2);
    const rival = new InterProcessSemaphore(other, path, { maxLeases: 2 });
    expect(await rival.tryAcquire()).toBeNull();
    await expect(rival.acquire({ timeoutMs: 50 })).rejects.toMatchObject({ code: 'LOCK_TIMEOUT' });
    await expect(rival.acquireMany(2, { signal: abortAfter(50) })).rejects.toMatchObject({ code: 'ABORTED' });
    for (const lease of leases) await lease.release();

    expect(only('granted')).toMatchObject({ recipe: 'semaphore', kind: 'lease', leases: 2, node: leases[0]!.path, fencingToken: leases[0]!.fencingToken, sessionId: session.sessionId });
    expect(heard.done.filter((c) => c.outcome === 'timeout').map((c) => [c.leases, c.timeoutMs, c.error === undefined])).toEqual([
      [1, 0, true],
      [1, 50, false],
    ]);
    expect(only('aborted')).toMatchObject({ recipe: 'semaphore', leases: 2 });
    // Two leases on one node: one release, when the last of them goes.
    expect(heard.releases.map((m) => [m.recipe, m.node, m.outcome])).toEqual([['semaphore', leases[0]!.path, 'released']]);
  });

  it("InterProcessMultiLock: one trace of its own around its members' (granted, re-entered, timed out, aborted)", async () => {
    const [a, b] = [dir('multi-a'), dir('multi-b')];
    const multi = InterProcessMultiLock.fromPaths(session, [a, b]);
    const handle = await multi.acquire();
    const again = await multi.acquire();
    await again.release();
    const rival = InterProcessMultiLock.fromPaths(other, [a, b]);
    expect(await rival.tryAcquire()).toBeNull();
    await expect(rival.acquire({ timeoutMs: 50 })).rejects.toMatchObject({ code: 'LOCK_TIMEOUT' });
    await expect(rival.acquire({ signal: abortAfter(50) })).rejects.toMatchObject({ code: 'ABORTED' });
    await handle.release();

    const multis = heard.done.filter((c) => c.recipe === 'multi-lock');
    expect(multis.map((c) => [c.outcome, c.kind, c.path, c.node, c.error === undefined])).toEqual([
      ['granted', 'multi', `${a},${b}`, undefined, true],
      ['reentered', 'multi', `${a},${b}`, undefined, true],
      ['timeout', 'multi', `${a},${b}`, undefined, true],
      ['timeout', 'multi', `${a},${b}`, undefined, false],
      ['aborted', 'multi', `${a},${b}`, undefined, false],
    ]);
    expect(multis[0]!.sessionId).toBe(session.sessionId);
    // The members' own traces: each granted, then re-entered, with its node.
    expect(heard.done.filter((c) => c.recipe === 'mutex' && (c.outcome === 'granted' || c.outcome === 'reentered')).map((c) => [c.outcome, c.node])).toEqual([
      ['granted', handle.paths[0]],
      ['granted', handle.paths[1]],
      ['reentered', handle.paths[0]],
      ['reentered', handle.paths[1]],
    ]);
    // The multi-lock's trace encloses its members': it starts first and ends last.
    const starts = heard.events.filter((e) => e.startsWith('start') || e.startsWith('asyncEnd'));
    expect(starts.slice(0, 6)).toEqual(['start multi-lock', 'start mutex', 'asyncEnd mutex granted', 'start mutex', 'asyncEnd mutex granted', 'asyncEnd multi-lock granted']);
    expect(heard.releases.map((m) => m.node)).toEqual([handle.paths[1], handle.paths[0]]);
  });
});

describe('zk-recipes:release and zk-recipes:lost', () => {
  it('NODE_DELETED: someone deletes the holder\'s node; its release afterwards tells nothing', async () => {
    const path = dir('deleted');
    const mutex = new InterProcessMutex(session, path);
    const handle = await mutex.acquire();
    const lost = new Promise<void>((resolve) => handle.signal.addEventListener('abort', () => resolve(), { once: true }));
    await other.delete(handle.path);
    await lost;
    expect(heard.losses).toEqual([
      { recipe: 'mutex', path, node: handle.path, sessionId: session.sessionId, code: 'NODE_DELETED', reason: handle.signal.reason, heldMs: expect.any(Number) },
    ]);
    await handle.release();
    expect(heard.releases).toEqual([]);
  });

  it('SESSION_LOST: the holder\'s session expires (a mutex and a semaphore lease)', async () => {
    const doomed = await connect();
    const sessionId = doomed.sessionId;
    const mutexPath = dir('expired-mutex');
    const semaphorePath = dir('expired-semaphore');
    const handle = await new InterProcessMutex(doomed, mutexPath).acquire();
    const lease = await new InterProcessSemaphore(doomed, semaphorePath, { maxLeases: 1 }).acquire();
    const lost = new Promise<void>((resolve) => doomed.once('lost', () => resolve()));
    await expireSession(testConnectString(), sessionInternals(doomed).credentials);
    await lost;
    expect(handle.signal.aborted && lease.signal.aborted).toBe(true);
    const byRecipe = [...heard.losses].sort((x, y) => x.recipe.localeCompare(y.recipe));
    expect(byRecipe.map((m) => [m.recipe, m.path, m.node, m.sessionId, m.code, m.reason])).toEqual([
      ['mutex', mutexPath, handle.path, sessionId, 'SESSION_LOST', handle.signal.reason],
      ['semaphore', semaphorePath, lease.path, sessionId, 'SESSION_LOST', lease.signal.reason],
    ]);
    expect(heard.losses.every((m) => m.heldMs >= 0)).toBe(true);
    await handle.release();
    await lease.release();
    expect(heard.releases).toEqual([]);
  });

  it('SESSION_CLOSED: close() with a lock held', async () => {
    const closing = await connect();
    const path = dir('closed');
    const handle = await new InterProcessMutex(closing, path).acquire();
    await closing.close();
    expect(heard.losses.map((m) => [m.node, m.code])).toEqual([[handle.path, 'SESSION_CLOSED']]);
  });
});

describe('zk-recipes:session', () => {
  it('tells every state change in order, each with the state before it: connected, suspended, reconnected, lost, connected (next generation), closed', async () => {
    const [host, port] = testConnectString().split(',')[0]!.split('/')[0]!.split(':') as [string, string];
    const proxy = await FaultProxy.start({ targetHost: host, targetPort: Number(port) });
    const states: SessionMessage[] = [];
    const listener = (message: unknown) => states.push(message as SessionMessage);
    diagnostics.subscribe(SESSION_CHANNEL, listener);
    try {
      const watched = await ZkSession.connect({ connectString: proxy.connectString, sessionTimeoutMs: 4_000 });
      const ours = () => states.filter((m) => m.sessionId === firstId || m.generation > 1);
      const firstId = watched.sessionId;
      const reconnected = new Promise<void>((resolve) => watched.once('reconnected', () => resolve()));
      proxy.dropConnections();
      await reconnected;
      const connectedAgain = new Promise<void>((resolve) => watched.once('connected', () => resolve()));
      await expireSession(testConnectString(), sessionInternals(watched).credentials);
      await connectedAgain;
      const secondId = watched.sessionId;
      await watched.close();
      const told = ours().filter((m) => m.sessionId === firstId || m.sessionId === secondId);
      // Each message names the state it left: the chain is whole, nothing is skipped.
      for (let i = 1; i < told.length; i++) expect(told[i]!.previous).toBe(told[i - 1]!.state);
      expect(told[0]).toEqual({ sessionId: firstId, state: 'connected', previous: 'connecting', generation: 1 });
      expect(told.slice(1, 3).map((m) => m.state)).toEqual(['suspended', 'reconnected']);
      const lost = told.find((m) => m.state === 'lost')!;
      expect(lost).toMatchObject({ sessionId: firstId, generation: 1, reason: expect.objectContaining({ code: 'SESSION_LOST' }) });
      expect(told.slice(-2)).toEqual([
        { sessionId: secondId, state: 'connected', previous: 'lost', generation: 2 },
        { sessionId: secondId, state: 'closed', previous: 'connected', generation: 2 },
      ]);
    } finally {
      diagnostics.unsubscribe(SESSION_CHANNEL, listener);
      await proxy.close();
    }
  });
});

describe('NODE_DEBUG=zk-recipes', () => {
  it('logs session transitions and each step of an acquisition, one line each, with the node names', async () => {
    const path = dir('debug');
    const result = await runDebugWorker(path, { ...process.env, NODE_DEBUG: 'zk-recipes' });
    const { holder, waiter } = JSON.parse(result.stdout) as { holder: string; waiter: string };
    const lines = result.stderr.split('\n').filter((line) => line.startsWith('ZK-RECIPES '));
    const said = lines.map((line) => line.replace(/^ZK-RECIPES \d+: /, ''));
    const holderName = holder.split('/').pop()!;
    const expected = [
      /^session [0-9a-f]{16} \(generation 1\): connecting -> connected$/,
      new RegExp(`^enqueued ${holder}$`),
      new RegExp(`^decided ${holder}: held$`),
      new RegExp(`^granted ${holder} \\(fencing token \\d+\\)$`),
      new RegExp(`^enqueued ${waiter}$`),
      new RegExp(`^decided ${waiter}: wait for ${holderName}$`),
      new RegExp(`^wait of ${waiter} ended: held$`),
      new RegExp(`^granted ${waiter} \\(fencing token \\d+\\)$`),
      /^failed \/.*-lock-\d{10}: LOCK_TIMEOUT$/,
      /^session [0-9a-f]{16} \(generation 1\): connected -> closed$/,
    ];
    for (const pattern of expected) expect(said.some((line) => pattern.test(line)), `a line matching ${pattern} in:\n${said.join('\n')}`).toBe(true);
    // In the order they happened.
    const at = (pattern: RegExp) => said.findIndex((line) => pattern.test(line));
    for (let i = 1; i < expected.length - 1; i++) expect(at(expected[i]!)).toBeGreaterThan(at(expected[i - 1]!));
    // Each release after its grant (the holder's and the waiter's deletion events race in one process).
    for (const node of [holder, waiter]) {
      expect(at(new RegExp(`^released ${node}$`)), `the release of ${node} in:\n${said.join('\n')}`).toBeGreaterThan(at(new RegExp(`^granted ${node} `)));
    }
  });

  it('says nothing without NODE_DEBUG', async () => {
    const env = { ...process.env };
    delete env['NODE_DEBUG'];
    const result = await runDebugWorker(dir('quiet'), env);
    expect(JSON.parse(result.stdout)).toHaveProperty('waiter');
    expect(result.stderr).not.toMatch(/ZK-RECIPES/);
  });
});
