/**
 * instrument() on real locks against a real ZooKeeper: what core publishes on its diagnostics
 * channels comes out as the documented instruments and spans (docs/observability.md,
 * "OpenTelemetry"), read back through OpenTelemetry's SDK with in-memory exporters.
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import { SpanStatusCode } from '@opentelemetry/api';
import { ZkSession, type LostMessage } from '@zk-recipes/core';
import { LeaderLatch } from '@zk-recipes/leader';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { InterProcessSemaphore } from '@zk-recipes/semaphore';
import { testConnectString, uniqueRoot } from '@zk-recipes/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTRIBUTE_NAMES, instrument, METRIC_NAMES, type Instrumentation } from '../src/index.js';
import { useAsyncContext } from './support/contextManager.js';
import { Telemetry } from './support/telemetry.js';

const root = uniqueRoot('otel');
const telemetry = new Telemetry();
let instrumentation: Instrumentation;
let holderSession: ZkSession;
let otherSession: ZkSession;

const connect = () => ZkSession.connect({ connectString: testConnectString(), sessionTimeoutMs: 4_000 });
const attributes = (recipe: string, path: string, outcome?: string) => ({
  [ATTRIBUTE_NAMES.recipe]: recipe,
  [ATTRIBUTE_NAMES.path]: path,
  ...(outcome === undefined ? {} : { [ATTRIBUTE_NAMES.outcome]: outcome }),
});
const spansOf = (path: string) => telemetry.spans().filter((s) => s.attributes[ATTRIBUTE_NAMES.path] === path);

beforeAll(async () => {
  instrumentation = instrument({ meterProvider: telemetry.meterProvider, tracerProvider: telemetry.tracerProvider });
  [holderSession, otherSession] = await Promise.all([connect(), connect()]);
});

afterAll(async () => {
  await Promise.all([holderSession?.close(), otherSession?.close()]);
  instrumentation?.uninstrument();
  await telemetry.shutdown();
});

describe('a mutex', () => {
  const path = `${root}/mutex`;

  it('acquire and release: a granted acquisition, its span with our node and fencing token, its hold; a timed-out tryAcquire meanwhile', async () => {
    const handle = await new InterProcessMutex(holderSession, path).acquire();
    const [granted] = spansOf(path);
    expect(granted!.name).toBe('zk-recipes acquire mutex');
    expect(granted!.attributes).toEqual({
      ...attributes('mutex', path, 'granted'),
      [ATTRIBUTE_NAMES.kind]: 'lock',
      [ATTRIBUTE_NAMES.sessionId]: holderSession.sessionId,
      [ATTRIBUTE_NAMES.node]: handle.path,
      [ATTRIBUTE_NAMES.fencingToken]: String(handle.fencingToken),
    });
    expect(granted!.status.code).toBe(SpanStatusCode.UNSET);

    // Another session waits its 300 ms: a waiter from the call (the start event is synchronous) to its outcome.
    const trying = new InterProcessMutex(otherSession, path).tryAcquire({ timeoutMs: 300 });
    expect(await telemetry.sum(METRIC_NAMES.waiters, attributes('mutex', path))).toBe(1);
    expect(await trying).toBeNull();
    expect(await telemetry.sum(METRIC_NAMES.waiters, attributes('mutex', path))).toBe(0);
    expect(await telemetry.sum(METRIC_NAMES.acquisitions, attributes('mutex', path, 'timeout'))).toBe(1);
    const timedOut = await telemetry.histogram(METRIC_NAMES.acquireDuration, attributes('mutex', path, 'timeout'));
    expect(timedOut!.count).toBe(1);
    expect(timedOut!.sum!).toBeGreaterThanOrEqual(290);
    const trySpan = spansOf(path)[1]!;
    expect(trySpan.attributes).toMatchObject({ ...attributes('mutex', path, 'timeout'), [ATTRIBUTE_NAMES.sessionId]: otherSession.sessionId });
    expect(trySpan.status.code).toBe(SpanStatusCode.UNSET);

    // An acquire() that times out rejects: its span says so, with the code.
    await expect(new InterProcessMutex(otherSession, path).acquire({ timeoutMs: 100 })).rejects.toMatchObject({ code: 'LOCK_TIMEOUT' });
    expect(spansOf(path)[2]!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'LOCK_TIMEOUT' });
    expect(await telemetry.sum(METRIC_NAMES.acquisitions, attributes('mutex', path, 'timeout'))).toBe(2);

    await handle.release();
    const held = await telemetry.histogram(METRIC_NAMES.holdDuration, attributes('mutex', path, 'released'));
    expect(held!.count).toBe(1);
    expect(held!.sum!).toBeGreaterThanOrEqual(timedOut!.sum! + 100);
    expect(await telemetry.sum(METRIC_NAMES.acquisitions, attributes('mutex', path, 'granted'))).toBe(1);
  });

  it('a re-entry is counted as reentered; only the last release records a hold', async () => {
    const reentrantPath = `${path}-reentrant`;
    const mutex = new InterProcessMutex(holderSession, reentrantPath);
    const outer = await mutex.acquire();
    const inner = await mutex.acquire();
    expect(await telemetry.sum(METRIC_NAMES.acquisitions, attributes('mutex', reentrantPath, 'reentered'))).toBe(1);
    await inner.release();
    expect(await telemetry.histogram(METRIC_NAMES.holdDuration, attributes('mutex', reentrantPath, 'released'))).toBeUndefined();
    await outer.release();
    expect((await telemetry.histogram(METRIC_NAMES.holdDuration, attributes('mutex', reentrantPath, 'released')))!.count).toBe(1);
  });

  it('a held node deleted by someone else: a loss by code NODE_DELETED, its hold recorded as lost, nothing more at its release', async () => {
    const lostPath = `${path}-lost`;
    const handle = await new InterProcessMutex(holderSession, lostPath).acquire();
    // Subscribed after instrument(): by the time this hears the loss, instrument() has recorded it.
    const heard = new Promise<LostMessage>((resolve) => {
      const listener = (message: unknown) => {
        diagnosticsChannel.unsubscribe('zk-recipes:lost', listener);
        resolve(message as LostMessage);
      };
      diagnosticsChannel.subscribe('zk-recipes:lost', listener);
    });
    await otherSession.delete(handle.path);
    expect(await heard).toMatchObject({ code: 'NODE_DELETED', node: handle.path });
    expect(await telemetry.sum(METRIC_NAMES.losses, { ...attributes('mutex', lostPath), [ATTRIBUTE_NAMES.lossCode]: 'NODE_DELETED' })).toBe(1);
    expect((await telemetry.histogram(METRIC_NAMES.holdDuration, attributes('mutex', lostPath, 'lost')))!.count).toBe(1);
    await handle.release();
    expect(await telemetry.histogram(METRIC_NAMES.holdDuration, attributes('mutex', lostPath, 'released'))).toBeUndefined();
  });
  it("its acquire span is a child of the caller's active span", async () => {
    const spanPath = `${path}-span`;
    const stopContext = useAsyncContext();
    try {
      const parent = await telemetry.tracerProvider.getTracer('caller').startActiveSpan('job', async (job) => {
        await new InterProcessMutex(holderSession, spanPath).withLock(() => undefined);
        job.end();
        return job.spanContext();
      });
      const [acquire] = spansOf(spanPath);
      expect(acquire!.parentSpanContext?.spanId).toBe(parent.spanId);
      expect(acquire!.spanContext().traceId).toBe(parent.traceId);
    } finally {
      stopContext();
    }
  });
});

describe('a semaphore', () => {
  it('a lease: a granted acquisition of kind lease with one lease asked for, its hold at release', async () => {
    const path = `${root}/semaphore`;
    const lease = await new InterProcessSemaphore(holderSession, path, { maxLeases: 2 }).acquire();
    const [span] = spansOf(path);
    expect(span!.name).toBe('zk-recipes acquire semaphore');
    expect(span!.attributes).toMatchObject({
      ...attributes('semaphore', path, 'granted'),
      [ATTRIBUTE_NAMES.kind]: 'lease',
      [ATTRIBUTE_NAMES.leases]: 1,
      [ATTRIBUTE_NAMES.node]: lease.path,
    });
    expect(await telemetry.sum(METRIC_NAMES.acquisitions, attributes('semaphore', path, 'granted'))).toBe(1);
    await lease.release();
    expect((await telemetry.histogram(METRIC_NAMES.holdDuration, attributes('semaphore', path, 'released')))!.count).toBe(1);
  });
});

describe('a leader election', () => {
  it('a latch: one election led while it leads, none once closed; gained and released counted, the leadership\'s length recorded', async () => {
    const path = `${root}/election`;
    const latch = new LeaderLatch(holderSession, path, { id: 'otel' });
    latch.start();
    const leadership = await latch.leadership();
    const election = attributes('leader-latch', path);
    expect(await telemetry.sum(METRIC_NAMES.leaders, election)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await latch.close();
    expect(leadership.signal.aborted).toBe(true);
    expect(await telemetry.sum(METRIC_NAMES.leaders, election)).toBe(0);
    expect(await telemetry.sum(METRIC_NAMES.leadershipChanges, { ...election, [ATTRIBUTE_NAMES.leadershipEvent]: 'gained' })).toBe(1);
    expect(await telemetry.sum(METRIC_NAMES.leadershipChanges, { ...election, [ATTRIBUTE_NAMES.leadershipEvent]: 'released', [ATTRIBUTE_NAMES.lossCode]: 'ELECTION_CLOSED' })).toBe(1);
    const lasted = await telemetry.histogram(METRIC_NAMES.leadershipDuration, attributes('leader-latch', path, 'released'));
    expect(lasted!.count).toBe(1);
    expect(lasted!.sum!).toBeGreaterThanOrEqual(50);
  });
});

describe('a session', () => {
  it('its state changes, connected and closed, counted by the state entered', async () => {
    const count = async (state: string) => (await telemetry.sum(METRIC_NAMES.sessionStateChanges, { [ATTRIBUTE_NAMES.sessionState]: state })) ?? 0;
    const [connectedBefore, closedBefore] = [await count('connected'), await count('closed')];
    const session = await connect();
    expect(await count('connected')).toBe(connectedBefore + 1);
    await session.close();
    expect(await count('closed')).toBe(closedBefore + 1);
  });
});
