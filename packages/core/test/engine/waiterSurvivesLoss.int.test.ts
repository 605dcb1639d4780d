/**
 * A waiter that does not hold yet survives the loss of its ZooKeeper session: it enqueues again on
 * the session's next one while its deadline, its signal and the retry policy allow; a holder's
 * loss is never papered over (docs/architecture.md, "A waiter survives its session").
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultProxy, nodeScriptArgs, pollUntil } from '@zk-recipes/testing';
import { ZkSession } from '../../src/session/index.js';
import { sessionInternals } from '../../src/session/sessionInternals.js';
import { LockQueue } from '../../src/engine/LockQueue.js';
import { sessionEnded } from '../../src/engine/sessionEnded.js';
import { exclusiveRule } from '../../src/engine/OrderingRule.js';
import { retryForever, retryNTimes, sessionFailedRetryPolicy, type RetryPolicy } from '../../src/retry/index.js';
import { childrenOf, untilChildCount } from '../../../testing/src/observeNodes.js';
import { jitterMs, PROMISED_SLACK_MS } from '../support/stalledServer.js';
import { expireSession, nextEvent, sharedServer, uniqueRoot } from '../session/support.js';

const root = uniqueRoot('survive');
const OP_EXISTS = 3;
const OP_GET_CHILDREN2 = 12;
let server: ReturnType<typeof sharedServer>;
let holderSession: ZkSession;
let observer: ZkSession;
const opened: ZkSession[] = [];

beforeAll(async () => {
  server = sharedServer();
  holderSession = await ZkSession.connect({ connectString: server.connectString, sessionTimeoutMs: 4000 });
  observer = await ZkSession.connect({ connectString: server.connectString, sessionTimeoutMs: 4000 });
  opened.push(holderSession, observer);
});
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
});

async function doomedSession(retryPolicy?: RetryPolicy): Promise<ZkSession> {
  const session = await ZkSession.connect({ connectString: server.connectString, sessionTimeoutMs: 4000, retryPolicy });
  opened.push(session);
  return session;
}

const enter = (queue: LockQueue, options: { timeoutMs?: number; signal?: AbortSignal } = {}) => queue.enter({ kind: 'lock-', rule: exclusiveRule, ...options });

/** Expires `session` on the server and waits until its next ZooKeeper session is connected. */
async function expireAndReconnect(session: ZkSession): Promise<void> {
  const lost = nextEvent(session, 'lost');
  const connected = lost.then(() => nextEvent(session, 'connected'));
  await expireSession(server.connectString, sessionInternals(session).credentials);
  await connected;
}

describe('a waiter whose session is lost', () => {
  it('enqueues again on the next session and is granted there when the holder releases', async () => {
    const path = `${root}/again`;
    const holder = await enter(new LockQueue(holderSession, path));
    const doomed = await doomedSession();
    const waiting = enter(new LockQueue(doomed, path));
    await untilChildCount(observer, path, 2, 5000);
    const [, oldWaiterNode] = (await childrenOf(observer, path)).sort((a, b) => a.slice(-10).localeCompare(b.slice(-10)));
    await expireAndReconnect(doomed);
    // The old node went with its session; the new one stands behind the holder.
    await untilChildCount(observer, path, 2, 5000);
    const names = await childrenOf(observer, path);
    expect(names).not.toContain(oldWaiterNode);
    await new LockQueue(holderSession, path).leave(holder);
    const seat = await waiting;
    expect(seat.generation).toBe(2);
    expect(seat.signal.aborted).toBe(false);
    expect((await observer.exists(seat.path))?.ephemeralOwner).toBe(doomed.sessionIdBigInt);
    await new LockQueue(doomed, path).leave(seat);
    expect(await childrenOf(observer, path)).toEqual([]);
  });

  it("reads its own node's deletion, then learns its session ended: enqueues again (the deletion may have been that end), never NODE_DELETED", async () => {
    // The server sends the deletions of a session's ephemeral nodes before it closes the session's
    // connection, so a waiter can read its own node's deletion before it knows its session ended.
    // Here: the waiter reads the deletion while nothing it sends reaches the server, and its
    // session ends before anything it sends could.
    const path = `${root}/read-first`;
    const holder = await enter(new LockQueue(holderSession, path));
    const proxy = await FaultProxy.start({ targetHost: server.host, targetPort: server.port });
    try {
      const doomed = await ZkSession.connect({ connectString: proxy.connectString, sessionTimeoutMs: 4000 });
      opened.push(doomed);
      const waiting = enter(new LockQueue(doomed, path));
      let settled = false;
      const outcome = waiting.then(
        (seat) => ({ seat }),
        (err: unknown) => ({ code: (err as { code?: string }).code }),
      );
      void outcome.finally(() => (settled = true));
      const [, waiterNode] = (await untilChildCount(observer, path, 2, 5000), (await childrenOf(observer, path)).sort((x, y) => x.slice(-10).localeCompare(y.slice(-10))));
      // Its watch on its own node is answered (so set on the server) before its requests are held:
      // the deletion below must reach it.
      await pollUntil(() => proxy.replyBytesTo(OP_GET_CHILDREN2, `${path}/${waiterNode!}`) > 0, 5000, "the answer to the waiter's watch on its own node");
      proxy.holdRequests();
      const probes = proxy.requestsTo(OP_EXISTS, '/');
      await observer.delete(`${path}/${waiterNode!}`);
      // The waiter has read its node's deletion once it asks whether its session still answers
      // (an `exists` held at the proxy), or once it gave up.
      await pollUntil(() => settled || proxy.requestsTo(OP_EXISTS, '/') > probes, 5000, 'its own node deletion read');
      const lost = nextEvent(doomed, 'lost');
      await expireSession(server.connectString, sessionInternals(doomed).credentials);
      proxy.heal();
      await lost;
      await untilChildCount(observer, path, 2, 5000); // enqueued again on the next session
      await new LockQueue(holderSession, path).leave(holder);
      const result = await outcome;
      expect(result).toHaveProperty('seat');
      if ('seat' in result) await new LockQueue(doomed, path).leave(result.seat);
    } finally {
      await proxy.close();
    }
  });

  it("reads its own node's deletion while its requests go unanswered, and is aborted while it asks whether its session ended: settles within the slack of the abort (ABORTED), the question unanswered", async () => {
    // A one-way partition (its requests held, the server's frames still read): the deletion is
    // read, the question (an `exists`) is held, and the session lives on (8 s: the watchdog would
    // cut the connection only after 5.3 s of silence).
    const path = `${root}/read-first-aborted`;
    const holder = await enter(new LockQueue(holderSession, path));
    const proxy = await FaultProxy.start({ targetHost: server.host, targetPort: server.port });
    try {
      const doomed = await ZkSession.connect({ connectString: proxy.connectString, sessionTimeoutMs: 8000 });
      opened.push(doomed);
      const abort = new AbortController();
      const outcome = enter(new LockQueue(doomed, path), { signal: abort.signal }).then(
        (seat) => ({ code: 'GRANTED', seat }),
        (err: unknown) => ({ code: (err as { code?: string }).code }),
      );
      const [, waiterNode] = (await untilChildCount(observer, path, 2, 5000), (await childrenOf(observer, path)).sort((x, y) => x.slice(-10).localeCompare(y.slice(-10))));
      await pollUntil(() => proxy.replyBytesTo(OP_GET_CHILDREN2, `${path}/${waiterNode!}`) > 0, 5000, "the answer to the waiter's watch on its own node");
      proxy.holdRequests();
      const probes = proxy.requestsTo(OP_EXISTS, '/');
      await observer.delete(`${path}/${waiterNode!}`);
      await pollUntil(() => proxy.requestsTo(OP_EXISTS, '/') > probes, 5000, 'the question whether its session ended');
      const abortedAt = performance.now();
      abort.abort();
      const result = await outcome;
      const settledAfterMs = performance.now() - abortedAt;
      expect(result.code).toBe('ABORTED');
      expect(settledAfterMs, `time bound: settled ${settledAfterMs} ms after the abort`).toBeLessThan(PROMISED_SLACK_MS + jitterMs());
      proxy.heal();
      await new LockQueue(holderSession, path).leave(holder);
      expect(await childrenOf(observer, path)).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it('ends with RETRIES_EXHAUSTED (cause SESSION_LOST) when the policy refuses a new session, and leaves no node', async () => {
    const path = `${root}/refused`;
    const holder = await enter(new LockQueue(holderSession, path));
    const doomed = await doomedSession(sessionFailedRetryPolicy(retryForever({ sleepMs: 10 })));
    const waiting = enter(new LockQueue(doomed, path));
    const outcome = waiting.then(
      () => undefined,
      (err: unknown) => err,
    );
    await untilChildCount(observer, path, 2, 5000);
    await expireAndReconnect(doomed);
    const error = (await outcome) as Error & { code: string; attempts: number; policy: string };
    expect(error).toMatchObject({ code: 'RETRIES_EXHAUSTED', attempts: 1, policy: 'sessionFailedRetryPolicy(retryForever(sleepMs: 10))' });
    expect(error.cause).toMatchObject({ code: 'SESSION_LOST' });
    expect(await childrenOf(observer, path)).toEqual([holder.name]);
    await new LockQueue(holderSession, path).leave(holder);
  });

  it('counts each lost session against the policy: retryNTimes(1) survives one loss, not two', async () => {
    const path = `${root}/counted`;
    const holder = await enter(new LockQueue(holderSession, path));
    const doomed = await doomedSession(retryNTimes({ n: 1, sleepMs: 0 }));
    const outcome = enter(new LockQueue(doomed, path)).then(
      () => undefined,
      (err: unknown) => err,
    );
    await untilChildCount(observer, path, 2, 5000);
    await expireAndReconnect(doomed);
    await untilChildCount(observer, path, 2, 5000); // enqueued again: the first loss was retried
    await expireAndReconnect(doomed);
    expect(await outcome).toMatchObject({ code: 'RETRIES_EXHAUSTED', attempts: 2 });
    expect(await childrenOf(observer, path)).toEqual([holder.name]);
    await new LockQueue(holderSession, path).leave(holder);
  });

  it('still ends at its deadline, and at its abort, with no node left', async () => {
    const path = `${root}/bounded`;
    const holder = await enter(new LockQueue(holderSession, path));
    const doomed = await doomedSession();
    const controller = new AbortController();
    const queue = new LockQueue(doomed, path);
    const aborted = enter(queue, { signal: controller.signal }).then(
      () => undefined,
      (err: unknown) => err,
    );
    // Long enough to outlast the expiry and the re-enqueue on a loaded machine (both must enqueue again first).
    const timedOut = enter(queue, { timeoutMs: 8000 }).then(
      () => undefined,
      (err: unknown) => err,
    );
    await untilChildCount(observer, path, 3, 5000);
    await expireAndReconnect(doomed);
    await untilChildCount(observer, path, 3, 5000); // both enqueued again
    controller.abort();
    expect(await aborted).toMatchObject({ code: 'ABORTED' });
    expect(await timedOut).toMatchObject({ code: 'LOCK_TIMEOUT' });
    await queue.settled(); // the deletes, sent before they settled
    expect(await childrenOf(observer, path)).toEqual([holder.name]);
    await new LockQueue(holderSession, path).leave(holder);
  });
});

describe('sessionEnded', () => {
  it('sessionEnded: false while the session answers; true for an ended one, whether or not the client has heard yet', async () => {
    const [live, doomed] = await Promise.all([doomedSession(), doomedSession()]);
    expect(await sessionEnded(live, live.generation, undefined, undefined)).toBe(false);
    const generation = doomed.generation;
    await expireSession(server.connectString, sessionInternals(doomed).credentials);
    expect(await sessionEnded(doomed, generation, 10_000, undefined)).toBe(true);
    expect(doomed.generation).toBeGreaterThan(generation);
  });
});

describe('waiters of a lost session sharing one signal', () => {
  it('2,000 of them follow it through one listener while they wait for the next session (adding one to an AbortSignal is linear in those it has)', async () => {
    const N = 2000;
    const path = `${root}/shared-signal`;
    const holder = await enter(new LockQueue(holderSession, path));
    const doomed = await ZkSession.connect({ connectString: server.connectString, sessionTimeoutMs: 20_000 });
    opened.push(doomed);
    const controller = new AbortController();
    // Counts what is added to the caller's signal (a plain AbortSignal, not the client).
    let added = 0;
    const add = controller.signal.addEventListener.bind(controller.signal);
    controller.signal.addEventListener = ((...args: Parameters<AbortSignal['addEventListener']>) => {
      added++;
      add(...args);
    }) as AbortSignal['addEventListener'];
    const queue = new LockQueue(doomed, path);
    const outcomes = Array.from({ length: N }, () =>
      enter(queue, { signal: controller.signal }).then(
        () => 'granted',
        (err: unknown) => (err as { code?: string }).code,
      ),
    );
    await untilChildCount(observer, path, N + 1, 60_000);
    const addedBefore = added;
    await expireAndReconnect(doomed);
    await untilChildCount(observer, path, N + 1, 60_000); // all enqueued again on the next session
    expect(added - addedBefore).toBeLessThanOrEqual(2);
    controller.abort();
    expect(new Set(await Promise.all(outcomes))).toEqual(new Set(['ABORTED']));
    await queue.settled();
    expect(await childrenOf(observer, path)).toEqual([holder.name]);
    await new LockQueue(holderSession, path).leave(holder);
  }, 120_000);
});

describe('a holder whose session is lost', () => {
  it('is told (its signal aborts with SESSION_LOST) and is not granted again on the next session', async () => {
    const path = `${root}/holder`;
    const doomed = await doomedSession();
    const seat = await enter(new LockQueue(doomed, path));
    await expireAndReconnect(doomed);
    expect(seat.signal.aborted).toBe(true);
    expect(seat.signal.reason).toMatchObject({ code: 'SESSION_LOST' });
    expect(await childrenOf(observer, path)).toEqual([]);
  });
});

describe('waiters that gave up with their session', () => {
  const script = fileURLToPath(new URL('./workers/gaveUpHeap.ts', import.meta.url));
  const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
  /** The worker's heaps (in a process of its own, with the collector exposed), in bytes. */
  async function gaveUpHeap(mode: 'plain' | 'keep-reason'): Promise<{ startBytes: number; waitingBytes: number; endedBytes: number; codes: string[] }> {
    const args = ['--expose-gc', ...nodeScriptArgs(script), server.connectString, `${root}/heap-${mode}`, '10000', mode];
    const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: repoRoot, timeout: 150_000, encoding: 'utf8' });
    const heaps = JSON.parse(stdout.trim().split('\n').at(-1)!) as { startBytes: number; waitingBytes: number; endedBytes: number; codes: string[] };
    console.log(`${mode}: start ${(heaps.startBytes / 1e6).toFixed(1)} MB, 10,000 waiting +${((heaps.waitingBytes - heaps.startBytes) / 1e6).toFixed(1)} MB, all ended +${((heaps.endedBytes - heaps.startBytes) / 1e6).toFixed(2)} MB`);
    return heaps;
  }

  // Each waiter's watches were registered in the session's wire client, and the session's one
  // `suspended` listener was made in the scope of the first waiter's subscription: either kept every
  // waiter of the lost session (+60 MB for 10,000) after they had all ended.
  it('10,000 waiters ended by a policy that refuses a lost session leave the heap within 10% of where it started', async () => {
    const heaps = await gaveUpHeap('plain');
    expect(heaps.codes).toEqual(['RETRIES_EXHAUSTED']);
    expect(heaps.waitingBytes - heaps.startBytes).toBeGreaterThan(10e6); // the premise: they cost memory while queued
    expect(heaps.endedBytes - heaps.startBytes).toBeLessThan(heaps.startBytes / 10);
  }, 180_000);

  it('the same, while the caller keeps the error the session was lost with (it reaches the lost session\'s wire client)', async () => {
    const heaps = await gaveUpHeap('keep-reason');
    expect(heaps.codes).toEqual(['RETRIES_EXHAUSTED']);
    expect(heaps.waitingBytes - heaps.startBytes).toBeGreaterThan(10e6);
    expect(heaps.endedBytes - heaps.startBytes).toBeLessThan(heaps.startBytes / 10);
  }, 180_000);
});
