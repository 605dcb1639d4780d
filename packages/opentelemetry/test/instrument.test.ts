/**
 * instrument() against the real node:diagnostics_channel channels, fed payloads of the documented
 * shapes (docs/observability.md, "Diagnostics channels"), read back through OpenTelemetry's SDK
 * with in-memory exporters. The integration test does the same with real locks.
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { diag, DiagLogLevel, metrics, SpanKind, SpanStatusCode, trace, type DiagLogger } from '@opentelemetry/api';
import { DataPointType } from '@opentelemetry/sdk-metrics';
import { ZkRecipesError } from '@zk-recipes/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ATTRIBUTE_NAMES, DURATION_BUCKETS_MS, instrument, METRIC_NAMES, type Instrumentation, type InstrumentOptions } from '../src/index.js';
import { useAsyncContext } from './support/contextManager.js';
import { Telemetry } from './support/telemetry.js';

const acquireChannel = diagnosticsChannel.tracingChannel<object>('zk-recipes:acquire');
const releaseChannel = diagnosticsChannel.channel('zk-recipes:release');
const lostChannel = diagnosticsChannel.channel('zk-recipes:lost');
const sessionChannel = diagnosticsChannel.channel('zk-recipes:session');
const leadershipChannel = diagnosticsChannel.channel('zk-recipes:leadership');

const SESSION = '01000261bb230005';
const packageVersion = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const LOCK = { [ATTRIBUTE_NAMES.recipe]: 'mutex', [ATTRIBUTE_NAMES.path]: '/locks/orders' };

/** An acquisition's context as core starts it. */
function acquireContext(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { recipe: 'mutex', path: '/locks/orders', kind: 'lock', sessionId: SESSION, ...overrides };
}

/** Runs `body` as an acquisition on the real tracing channel, as core does: tracePromise. */
function traceAcquire<T>(context: Record<string, unknown>, body: (context: Record<string, unknown>) => Promise<T>): Promise<T> {
  return acquireChannel.tracePromise(() => body(context), context);
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (err: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

let telemetry: Telemetry;
let instrumentation: Instrumentation | undefined;

function start(options: InstrumentOptions = {}): Instrumentation {
  instrumentation = instrument({ meterProvider: telemetry.meterProvider, tracerProvider: telemetry.tracerProvider, ...options });
  return instrumentation;
}

beforeEach(() => {
  telemetry = new Telemetry();
});

afterEach(async () => {
  instrumentation?.uninstrument();
  instrumentation = undefined;
  await telemetry.shutdown();
});

describe('the instruments', () => {
  it('are the documented set: names, kinds, units, bucket advice', async () => {
    start();
    // Every instrument records once, so that the reader reports its descriptor.
    await traceAcquire(acquireContext(), async (context) => Object.assign(context, { outcome: 'granted', waitMs: 1 }));
    releaseChannel.publish({ recipe: 'mutex', path: '/locks/orders', node: '/locks/orders/n', sessionId: SESSION, holdMs: 3, outcome: 'released' });
    lostChannel.publish({ recipe: 'mutex', path: '/locks/orders', node: '/locks/orders/n', sessionId: SESSION, code: 'SESSION_LOST', reason: new Error('lost'), heldMs: 4 });
    sessionChannel.publish({ sessionId: SESSION, state: 'connected', previous: 'connecting', generation: 1 });
    leadershipChannel.publish({ recipe: 'leader-latch', path: '/elections/a', node: '/elections/a/n', id: 'a', sessionId: SESSION, event: 'gained', fencingToken: 7n });
    leadershipChannel.publish({ recipe: 'leader-latch', path: '/elections/a', node: '/elections/a/n', id: 'a', sessionId: SESSION, event: 'released', fencingToken: 7n, code: 'ELECTION_CLOSED', reason: new Error('closed'), heldMs: 5 });

    const byName = await telemetry.metrics();
    // A counter is a monotonic sum, an up-down counter a sum that is not.
    const described = [...byName.values()].map((metric) => ({
      name: metric.descriptor.name,
      unit: metric.descriptor.unit,
      dataPointType: metric.dataPointType,
      monotonic: metric.dataPointType === DataPointType.SUM ? metric.isMonotonic : undefined,
    }));
    expect(described.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: 'zk_recipes.leadership.changes', unit: '{change}', dataPointType: DataPointType.SUM, monotonic: true },
      { name: 'zk_recipes.leadership.duration', unit: 'ms', dataPointType: DataPointType.HISTOGRAM, monotonic: undefined },
      { name: 'zk_recipes.leadership.leaders', unit: '{leader}', dataPointType: DataPointType.SUM, monotonic: false },
      { name: 'zk_recipes.lock.acquire.duration', unit: 'ms', dataPointType: DataPointType.HISTOGRAM, monotonic: undefined },
      { name: 'zk_recipes.lock.acquisitions', unit: '{acquisition}', dataPointType: DataPointType.SUM, monotonic: true },
      { name: 'zk_recipes.lock.hold.duration', unit: 'ms', dataPointType: DataPointType.HISTOGRAM, monotonic: undefined },
      { name: 'zk_recipes.lock.losses', unit: '{loss}', dataPointType: DataPointType.SUM, monotonic: true },
      { name: 'zk_recipes.lock.waiters', unit: '{waiter}', dataPointType: DataPointType.SUM, monotonic: false },
      { name: 'zk_recipes.session.state_changes', unit: '{change}', dataPointType: DataPointType.SUM, monotonic: true },
    ]);
    expect(Object.values(METRIC_NAMES).sort()).toEqual(described.map((d) => d.name));
    for (const name of [METRIC_NAMES.acquireDuration, METRIC_NAMES.holdDuration, METRIC_NAMES.leadershipDuration]) {
      const point = byName.get(name)!.dataPoints[0]!.value as { buckets: { boundaries: number[] } };
      expect(point.buckets.boundaries, name).toEqual([...DURATION_BUCKETS_MS]);
    }
  });

  it("default to the global providers of @opentelemetry/api", async () => {
    expect(metrics.setGlobalMeterProvider(telemetry.meterProvider)).toBe(true);
    expect(trace.setGlobalTracerProvider(telemetry.tracerProvider)).toBe(true);
    try {
      instrumentation = instrument();
      await traceAcquire(acquireContext(), async (context) => Object.assign(context, { outcome: 'granted', waitMs: 2 }));
      expect(await telemetry.sum(METRIC_NAMES.acquisitions, { ...LOCK, [ATTRIBUTE_NAMES.outcome]: 'granted' })).toBe(1);
      expect(telemetry.spans().map((s) => s.name)).toEqual(['zk-recipes acquire mutex']);
    } finally {
      metrics.disable();
      trace.disable();
    }
  });
});

describe('an acquisition (the tracing channel zk-recipes:acquire)', () => {
  it('granted: counted by outcome, its wait recorded, a span from the call to the grant with node and fencing token', async () => {
    start();
    // The span's clock (the SDK's: the time origin plus the monotonic clock), not Date.now(), which
    // can drift from it.
    const before = performance.timeOrigin + performance.now();
    await traceAcquire(acquireContext({ timeoutMs: 5_000 }), async (context) => {
      await nextMacrotask();
      return Object.assign(context, { outcome: 'granted', node: '/locks/orders/_c_1-lock-0000000007', fencingToken: 7n, waitMs: 12.5 });
    });

    const granted = { ...LOCK, [ATTRIBUTE_NAMES.outcome]: 'granted' };
    expect(await telemetry.sum(METRIC_NAMES.acquisitions, granted)).toBe(1);
    expect(await telemetry.histogram(METRIC_NAMES.acquireDuration, granted)).toMatchObject({ count: 1, sum: 12.5 });
    expect(await telemetry.sum(METRIC_NAMES.waiters, LOCK)).toBe(0);

    const [span, ...others] = telemetry.spans();
    expect(others).toEqual([]);
    expect(span!.name).toBe('zk-recipes acquire mutex');
    expect(span!.kind).toBe(SpanKind.INTERNAL);
    expect(span!.instrumentationScope).toMatchObject({ name: '@zk-recipes/opentelemetry', version: packageVersion });
    expect(span!.attributes).toEqual({
      ...granted,
      [ATTRIBUTE_NAMES.kind]: 'lock',
      [ATTRIBUTE_NAMES.sessionId]: SESSION,
      [ATTRIBUTE_NAMES.node]: '/locks/orders/_c_1-lock-0000000007',
      [ATTRIBUTE_NAMES.fencingToken]: '7',
    });
    expect(span!.status.code).toBe(SpanStatusCode.UNSET);
    expect(span!.ended).toBe(true);
    const startedMs = span!.startTime[0] * 1_000 + span!.startTime[1] / 1e6;
    expect(startedMs).toBeGreaterThanOrEqual(before - 1); // the SDK rounds its time origin
  });

  it('its span is a child of the span active where the acquisition started', async () => {
    start();
    const stopContext = useAsyncContext();
    try {
      const caller = telemetry.tracerProvider.getTracer('caller');
      const parent = await caller.startActiveSpan('job', async (job) => {
        await traceAcquire(acquireContext(), async (c) => Object.assign(c, { outcome: 'granted' }));
        job.end();
        return job.spanContext();
      });
      const acquire = telemetry.spans().find((s) => s.name === 'zk-recipes acquire mutex')!;
      expect(acquire.spanContext().traceId).toBe(parent.traceId);
      expect(acquire.parentSpanContext?.spanId).toBe(parent.spanId);
    } finally {
      stopContext();
    }
  });

  it('a waiter counts in zk_recipes.lock.waiters until its outcome; its span is open until then', async () => {
    start();
    const grant = deferred<void>();
    const context = acquireContext();
    const acquiring = traceAcquire(context, async () => {
      await grant.promise;
      Object.assign(context, { outcome: 'granted', waitMs: 40 });
    });
    expect(await telemetry.sum(METRIC_NAMES.waiters, LOCK)).toBe(1);
    expect(await telemetry.sum(METRIC_NAMES.acquisitions, { ...LOCK, [ATTRIBUTE_NAMES.outcome]: 'granted' })).toBeUndefined();
    expect(telemetry.spans()).toEqual([]);

    grant.resolve();
    await acquiring;
    expect(await telemetry.sum(METRIC_NAMES.waiters, LOCK)).toBe(0);
    expect(telemetry.spans()).toHaveLength(1);
  });

  it('timed out (rejected with LOCK_TIMEOUT): outcome timeout, span status error with the code, the exception recorded', async () => {
    start();
    const timeout = new ZkRecipesError('LOCK_TIMEOUT', 'could not acquire /locks/orders within 50 ms');
    await expect(
      traceAcquire(acquireContext({ timeoutMs: 50 }), async (context) => {
        Object.assign(context, { outcome: 'timeout', waitMs: 50 });
        throw timeout;
      }),
    ).rejects.toBe(timeout);

    const timedOut = { ...LOCK, [ATTRIBUTE_NAMES.outcome]: 'timeout' };
    expect(await telemetry.sum(METRIC_NAMES.acquisitions, timedOut)).toBe(1);
    expect(await telemetry.histogram(METRIC_NAMES.acquireDuration, timedOut)).toMatchObject({ count: 1, sum: 50 });
    expect(await telemetry.sum(METRIC_NAMES.waiters, LOCK)).toBe(0);
    const [span] = telemetry.spans();
    expect(span!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'LOCK_TIMEOUT' });
    expect(span!.attributes).toMatchObject({ ...timedOut, [ATTRIBUTE_NAMES.errorType]: 'LOCK_TIMEOUT' });
    expect(span!.events.map((e) => [e.name, e.attributes?.['exception.type'], e.attributes?.['exception.message']])).toEqual([
      ['exception', 'LOCK_TIMEOUT', timeout.message],
    ]);
  });

  it('tryAcquire resolving null: outcome timeout, and no error on the span (nothing failed)', async () => {
    start();
    const result = await traceAcquire(acquireContext({ timeoutMs: 0 }), async (context) => {
      Object.assign(context, { outcome: 'timeout', waitMs: 0.3 });
      return null;
    });
    expect(result).toBeNull();
    expect(await telemetry.sum(METRIC_NAMES.acquisitions, { ...LOCK, [ATTRIBUTE_NAMES.outcome]: 'timeout' })).toBe(1);
    const [span] = telemetry.spans();
    expect(span!.status.code).toBe(SpanStatusCode.UNSET);
    expect(span!.attributes[ATTRIBUTE_NAMES.errorType]).toBeUndefined();
  });

  it('aborted, re-entered, failed: each counted under its outcome; a context without outcome gets one from its error', async () => {
    start();
    const aborted = new ZkRecipesError('ABORTED', 'aborted');
    await expect(traceAcquire(acquireContext(), async (c) => Promise.reject(Object.assign(c, { outcome: 'aborted' }) && aborted))).rejects.toBe(aborted);
    await traceAcquire(acquireContext(), async (c) => Object.assign(c, { outcome: 'reentered', waitMs: 0, fencingToken: 3n }));
    const lost = new ZkRecipesError('SESSION_LOST', 'lost');
    await expect(traceAcquire(acquireContext(), async (c) => Promise.reject(Object.assign(c, { outcome: 'failed' }) && lost))).rejects.toBe(lost);
    // No outcome on the context: the error's code decides, `failed` when it names none of ours.
    await expect(traceAcquire(acquireContext(), async () => Promise.reject(new ZkRecipesError('LOCK_TIMEOUT', 't')))).rejects.toThrow('t');
    await expect(traceAcquire(acquireContext(), async () => Promise.reject(new TypeError('bug')))).rejects.toThrow('bug');

    const count = (outcome: string) => telemetry.sum(METRIC_NAMES.acquisitions, { ...LOCK, [ATTRIBUTE_NAMES.outcome]: outcome });
    expect([await count('aborted'), await count('reentered'), await count('failed'), await count('timeout')]).toEqual([1, 1, 2, 1]);
    expect(await telemetry.sum(METRIC_NAMES.waiters, LOCK)).toBe(0);
    expect(telemetry.spans().map((s) => [s.attributes[ATTRIBUTE_NAMES.outcome], s.status.code, s.status.message])).toEqual([
      ['aborted', SpanStatusCode.ERROR, 'ABORTED'],
      ['reentered', SpanStatusCode.UNSET, undefined],
      ['failed', SpanStatusCode.ERROR, 'SESSION_LOST'],
      ['timeout', SpanStatusCode.ERROR, 'LOCK_TIMEOUT'],
      ['failed', SpanStatusCode.ERROR, 'TypeError'],
    ]);
  });

  it('a synchronous throw (error then end, no asyncEnd) ends the acquisition once', async () => {
    start();
    const invalid = new ZkRecipesError('INVALID_ARGUMENT', 'timeoutMs must be >= 0');
    expect(() =>
      acquireChannel.tracePromise(() => {
        throw invalid;
      }, acquireContext()),
    ).toThrow(invalid);
    expect(await telemetry.sum(METRIC_NAMES.acquisitions, { ...LOCK, [ATTRIBUTE_NAMES.outcome]: 'failed' })).toBe(1);
    expect(await telemetry.sum(METRIC_NAMES.waiters, LOCK)).toBe(0);
    expect(telemetry.spans().map((s) => s.status)).toEqual([{ code: SpanStatusCode.ERROR, message: 'INVALID_ARGUMENT' }]);
  });

  it('a semaphore acquisition: its leases on the span, its recipe in the span name and the attributes', async () => {
    start();
    await traceAcquire(acquireContext({ recipe: 'semaphore', path: '/pools/db', kind: 'lease', leases: 2 }), async (c) =>
      Object.assign(c, { outcome: 'granted', node: '/pools/db/_c_1-lease-w2-0000000000', fencingToken: 0n, waitMs: 1 }),
    );
    const attributes = { [ATTRIBUTE_NAMES.recipe]: 'semaphore', [ATTRIBUTE_NAMES.path]: '/pools/db', [ATTRIBUTE_NAMES.outcome]: 'granted' };
    expect(await telemetry.sum(METRIC_NAMES.acquisitions, attributes)).toBe(1);
    const [span] = telemetry.spans();
    expect(span!.name).toBe('zk-recipes acquire semaphore');
    expect(span!.attributes).toMatchObject({ ...attributes, [ATTRIBUTE_NAMES.kind]: 'lease', [ATTRIBUTE_NAMES.leases]: 2, [ATTRIBUTE_NAMES.fencingToken]: '0' });
  });
});

describe('releases, losses, sessions', () => {
  it('zk-recipes:release: the hold recorded in zk_recipes.lock.hold.duration by outcome', async () => {
    start();
    releaseChannel.publish({ recipe: 'mutex', path: '/locks/orders', node: '/locks/orders/n1', sessionId: SESSION, holdMs: 120, outcome: 'released' });
    releaseChannel.publish({ recipe: 'mutex', path: '/locks/orders', node: '/locks/orders/n2', sessionId: SESSION, holdMs: 80, outcome: 'released' });
    releaseChannel.publish({ recipe: 'mutex', path: '/locks/orders', node: '/locks/orders/n3', sessionId: SESSION, holdMs: 5, outcome: 'failed', error: new Error('x') });
    expect(await telemetry.histogram(METRIC_NAMES.holdDuration, { ...LOCK, [ATTRIBUTE_NAMES.outcome]: 'released' })).toMatchObject({ count: 2, sum: 200 });
    expect(await telemetry.histogram(METRIC_NAMES.holdDuration, { ...LOCK, [ATTRIBUTE_NAMES.outcome]: 'failed' })).toMatchObject({ count: 1, sum: 5 });
  });

  it('zk-recipes:lost: a loss counted by code, and its hold recorded with outcome lost', async () => {
    start();
    const lost = (code: string, heldMs: number) =>
      lostChannel.publish({ recipe: 'write-lock', path: '/locks/catalog', node: '/locks/catalog/n', sessionId: SESSION, code, reason: new Error(code), heldMs });
    lost('SESSION_LOST', 1_000);
    lost('SESSION_LOST', 2_000);
    lost('NODE_DELETED', 10);
    const lock = { [ATTRIBUTE_NAMES.recipe]: 'write-lock', [ATTRIBUTE_NAMES.path]: '/locks/catalog' };
    expect(await telemetry.sum(METRIC_NAMES.losses, { ...lock, [ATTRIBUTE_NAMES.lossCode]: 'SESSION_LOST' })).toBe(2);
    expect(await telemetry.sum(METRIC_NAMES.losses, { ...lock, [ATTRIBUTE_NAMES.lossCode]: 'NODE_DELETED' })).toBe(1);
    expect(await telemetry.histogram(METRIC_NAMES.holdDuration, { ...lock, [ATTRIBUTE_NAMES.outcome]: 'lost' })).toMatchObject({ count: 3, sum: 3_010 });
  });

  it('zk-recipes:leadership: elections led now, every change by event and code, each leadership\'s length by how it ended', async () => {
    start();
    const election = { [ATTRIBUTE_NAMES.recipe]: 'leader-latch', [ATTRIBUTE_NAMES.path]: '/elections/scheduler' };
    const publish = (event: string, extra: Record<string, unknown> = {}) =>
      leadershipChannel.publish({ recipe: 'leader-latch', path: '/elections/scheduler', node: '/elections/scheduler/n', id: 'a', sessionId: SESSION, event, fencingToken: 7n, ...extra });
    publish('gained');
    expect(await telemetry.sum(METRIC_NAMES.leaders, election)).toBe(1);
    publish('lost', { code: 'SESSION_LOST', reason: new Error('lost'), heldMs: 1_000 });
    expect(await telemetry.sum(METRIC_NAMES.leaders, election)).toBe(0);
    publish('gained');
    publish('released', { code: 'ELECTION_CLOSED', reason: new Error('closed'), heldMs: 50 });
    const changes = (await telemetry.points(METRIC_NAMES.leadershipChanges)).map((p) => [p.attributes[ATTRIBUTE_NAMES.leadershipEvent], p.attributes[ATTRIBUTE_NAMES.lossCode] ?? null, p.value]);
    expect(changes.sort()).toEqual([
      ['gained', null, 2],
      ['lost', 'SESSION_LOST', 1],
      ['released', 'ELECTION_CLOSED', 1],
    ]);
    expect(await telemetry.histogram(METRIC_NAMES.leadershipDuration, { ...election, [ATTRIBUTE_NAMES.outcome]: 'lost' })).toMatchObject({ count: 1, sum: 1_000 });
    expect(await telemetry.histogram(METRIC_NAMES.leadershipDuration, { ...election, [ATTRIBUTE_NAMES.outcome]: 'released' })).toMatchObject({ count: 1, sum: 50 });
    expect(await telemetry.sum(METRIC_NAMES.leaders, election)).toBe(0);
  });

  it('zk-recipes:session: every state change counted by the state entered, closed included', async () => {
    start();
    const states = [
      ['connected', 'connecting'],
      ['suspended', 'connected'],
      ['reconnected', 'suspended'],
      ['suspended', 'reconnected'],
      ['lost', 'suspended'],
      ['closed', 'lost'],
    ];
    for (const [state, previous] of states) sessionChannel.publish({ sessionId: SESSION, state, previous, generation: 1 });
    const counted = (await telemetry.points(METRIC_NAMES.sessionStateChanges)).map((p) => [p.attributes[ATTRIBUTE_NAMES.sessionState], p.value]);
    expect(counted.sort()).toEqual([
      ['closed', 1],
      ['connected', 1],
      ['lost', 1],
      ['reconnected', 1],
      ['suspended', 2],
    ]);
  });
});

describe('options and lifetime', () => {
  it('lockName names the lock in every attribute set, metrics and span alike', async () => {
    const seen: Array<[string, string]> = [];
    start({
      lockName: (path, recipe) => {
        seen.push([path, recipe]);
        return path.replace(/\/\d+$/, '/{id}');
      },
    });
    for (const id of [1, 2]) {
      await traceAcquire(acquireContext({ path: `/jobs/${id}` }), async (c) => Object.assign(c, { outcome: 'granted', waitMs: 1 }));
      releaseChannel.publish({ recipe: 'mutex', path: `/jobs/${id}`, node: `/jobs/${id}/n`, sessionId: SESSION, holdMs: 1, outcome: 'released' });
    }
    lostChannel.publish({ recipe: 'mutex', path: '/jobs/3', node: '/jobs/3/n', sessionId: SESSION, code: 'NODE_DELETED', reason: new Error(), heldMs: 1 });

    const named = { [ATTRIBUTE_NAMES.recipe]: 'mutex', [ATTRIBUTE_NAMES.path]: '/jobs/{id}' };
    expect(await telemetry.sum(METRIC_NAMES.acquisitions, { ...named, [ATTRIBUTE_NAMES.outcome]: 'granted' })).toBe(2);
    expect(await telemetry.sum(METRIC_NAMES.waiters, named)).toBe(0);
    expect(await telemetry.histogram(METRIC_NAMES.holdDuration, { ...named, [ATTRIBUTE_NAMES.outcome]: 'released' })).toMatchObject({ count: 2 });
    expect(await telemetry.sum(METRIC_NAMES.losses, { ...named, [ATTRIBUTE_NAMES.lossCode]: 'NODE_DELETED' })).toBe(1);
    expect(telemetry.spans().map((s) => s.attributes[ATTRIBUTE_NAMES.path])).toEqual(['/jobs/{id}', '/jobs/{id}']);
    expect(seen).toContainEqual(['/jobs/1', 'mutex']);
  });

  it('a lockName that throws never throws into the library: the acquisition goes on, the failure goes to the diag log', async () => {
    const errors: unknown[][] = [];
    const logger: DiagLogger = { error: (...args) => void errors.push(args), warn: () => {}, info: () => {}, debug: () => {}, verbose: () => {} };
    diag.setLogger(logger, DiagLogLevel.ERROR);
    try {
      start({
        lockName: () => {
          throw new Error('naming bug');
        },
      });
      const result = await traceAcquire(acquireContext(), async (c) => Object.assign(c, { outcome: 'granted' }));
      expect(result).toMatchObject({ outcome: 'granted' });
      releaseChannel.publish({ recipe: 'mutex', path: '/locks/orders', node: '/locks/orders/n', sessionId: SESSION, holdMs: 1, outcome: 'released' });
      // A subscriber's throw would surface as an uncaught exception on a later tick: let it.
      await nextMacrotask();
      expect(errors.map((args) => String(args[0]))).toEqual([
        '@zk-recipes/opentelemetry: recording start failed',
        '@zk-recipes/opentelemetry: recording zk-recipes:release failed',
      ]);
      expect((errors[0]![1] as Error).message).toBe('naming bug');
    } finally {
      diag.disable();
    }
  });

  it('options of the wrong type are refused at the call', () => {
    expect(() => instrument({ lockName: 'orders' as never })).toThrow(TypeError);
    expect(() => instrument({ meterProvider: {} as never })).toThrow(/meterProvider must have getMeter/);
    expect(() => instrument({ tracerProvider: {} as never })).toThrow(/tracerProvider must have getTracer/);
    expect(acquireChannel.hasSubscribers).toBe(false);
  });

  it('uninstrument() unsubscribes from every channel; an acquisition in progress ends its span and leaves the waiters; twice is harmless', async () => {
    const handle = start();
    expect([acquireChannel.hasSubscribers, releaseChannel.hasSubscribers, lostChannel.hasSubscribers, sessionChannel.hasSubscribers, leadershipChannel.hasSubscribers]).toEqual([true, true, true, true, true]);
    const grant = deferred<void>();
    const context = acquireContext();
    const acquiring = traceAcquire(context, async () => {
      await grant.promise;
      Object.assign(context, { outcome: 'granted' });
    });
    expect(await telemetry.sum(METRIC_NAMES.waiters, LOCK)).toBe(1);

    handle.uninstrument();
    handle.uninstrument();
    expect([acquireChannel.hasSubscribers, releaseChannel.hasSubscribers, lostChannel.hasSubscribers, sessionChannel.hasSubscribers, leadershipChannel.hasSubscribers]).toEqual([false, false, false, false, false]);
    expect(await telemetry.sum(METRIC_NAMES.waiters, LOCK)).toBe(0);
    expect(telemetry.spans().map((s) => [s.name, s.ended, s.attributes[ATTRIBUTE_NAMES.outcome]])).toEqual([['zk-recipes acquire mutex', true, undefined]]);

    grant.resolve();
    await acquiring;
    releaseChannel.publish({ recipe: 'mutex', path: '/locks/orders', node: '/locks/orders/n', sessionId: SESSION, holdMs: 1, outcome: 'released' });
    sessionChannel.publish({ sessionId: SESSION, state: 'closed', previous: 'connected', generation: 1 });
    expect(await telemetry.sum(METRIC_NAMES.acquisitions, { ...LOCK, [ATTRIBUTE_NAMES.outcome]: 'granted' })).toBeUndefined();
    expect(await telemetry.points(METRIC_NAMES.holdDuration)).toEqual([]);
    expect(await telemetry.points(METRIC_NAMES.sessionStateChanges)).toEqual([]);
    expect(telemetry.spans()).toHaveLength(1);
  });

  it('`using` disposes it: Symbol.dispose is uninstrument()', () => {
    {
      using _instrumentation = start();
      expect(acquireChannel.hasSubscribers).toBe(true);
    }
    expect(acquireChannel.hasSubscribers).toBe(false);
  });
});
