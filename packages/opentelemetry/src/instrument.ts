import diagnosticsChannel from 'node:diagnostics_channel';
import { diag, metrics, trace, type Attributes } from '@opentelemetry/api';
import {
  ACQUIRE_CHANNEL,
  LEADERSHIP_CHANNEL,
  LOST_CHANNEL,
  RELEASE_CHANNEL,
  SESSION_CHANNEL,
  type AcquireContext,
  type LeadershipMessage,
  type LostMessage,
  type ReleaseMessage,
  type SessionMessage,
} from '@zk-recipes/core';
import { AcquisitionRecorder } from './acquisitions.js';
import { createInstruments } from './instruments.js';
import { ATTRIBUTE_NAMES } from './names.js';
import { checkOptions, type InstrumentOptions } from './options.js';
import { SCOPE_NAME, scopeVersion } from './scope.js';

/** What {@link instrument} returns: ends the recording. */
export interface Instrumentation extends Disposable {
  /** Unsubscribes from every channel; acquisitions still in progress end their span and leave the waiters count. Idempotent. */
  uninstrument(): void;
  /** The same as {@link Instrumentation.uninstrument}, for `using`. */
  [Symbol.dispose](): void;
}

/**
 * Records zk-recipes' locks and elections as OpenTelemetry metrics and traces: subscribes to the
 * library's diagnostics channels (`zk-recipes:acquire`, `zk-recipes:release`, `zk-recipes:lost`,
 * `zk-recipes:session`, `zk-recipes:leadership`) and records, through `@opentelemetry/api`, the instruments and the acquire
 * span listed in docs/observability.md ("OpenTelemetry"). Every zk-recipes package in the process
 * is seen, whichever copy of `@zk-recipes/core` it loaded: channels are named globally.
 *
 * @example
 * ```ts
 * import { instrument } from '@zk-recipes/opentelemetry';
 * const instrumentation = instrument({ lockName: (path) => path.replace(/\/\d+\//, '/{id}/') });
 * // ... on shutdown:
 * instrumentation.uninstrument();
 * ```
 */
export function instrument(options: InstrumentOptions = {}): Instrumentation {
  checkOptions(options);
  const version = scopeVersion();
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE_NAME, version);
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE_NAME, version);
  const instruments = createInstruments(meter);
  const { lockName } = options;
  const lockAttributes = (recipe: string, path: string): Attributes => ({
    [ATTRIBUTE_NAMES.recipe]: recipe,
    [ATTRIBUTE_NAMES.path]: lockName === undefined ? path : String(lockName(path, recipe)),
  });
  const acquisitions = new AcquisitionRecorder(instruments, tracer, lockAttributes);

  const acquireHandlers = {
    start: guarded('start', (context: unknown) => acquisitions.start(context as AcquireContext)),
    end: guarded('end', (context: unknown) => acquisitions.end(context as AcquireContext)),
    asyncEnd: guarded('asyncEnd', (context: unknown) => acquisitions.asyncEnd(context as AcquireContext)),
    // Nothing happens between a settlement and its continuation that we record.
    asyncStart: () => undefined,
    error: guarded('error', (context: unknown) => acquisitions.error(context as AcquireContext)),
  };
  const onRelease = guarded(RELEASE_CHANNEL, (message: unknown) => {
    const { recipe, path, holdMs, outcome } = message as ReleaseMessage;
    if (typeof holdMs !== 'number') return;
    instruments.holdDuration.record(holdMs, { ...lockAttributes(String(recipe), String(path)), [ATTRIBUTE_NAMES.outcome]: outcome ?? 'released' });
  });
  const onLost = guarded(LOST_CHANNEL, (message: unknown) => {
    const { recipe, path, code, heldMs } = message as LostMessage;
    const attributes = lockAttributes(String(recipe), String(path));
    instruments.losses.add(1, { ...attributes, [ATTRIBUTE_NAMES.lossCode]: code ?? '_OTHER' });
    // A hold that ended by loss is a hold too: its length belongs with the others.
    if (typeof heldMs === 'number') instruments.holdDuration.record(heldMs, { ...attributes, [ATTRIBUTE_NAMES.outcome]: 'lost' });
  });
  const onSession = guarded(SESSION_CHANNEL, (message: unknown) => {
    instruments.sessionStateChanges.add(1, { [ATTRIBUTE_NAMES.sessionState]: String((message as SessionMessage).state) });
  });
  const onLeadership = guarded(LEADERSHIP_CHANNEL, (message: unknown) => {
    const { recipe, path, event, code, heldMs } = message as LeadershipMessage;
    const election = lockAttributes(String(recipe), String(path));
    const ended = event !== 'gained';
    instruments.leaders.add(ended ? -1 : 1, election);
    instruments.leadershipChanges.add(1, { ...election, [ATTRIBUTE_NAMES.leadershipEvent]: String(event), ...(ended ? { [ATTRIBUTE_NAMES.lossCode]: code ?? '_OTHER' } : {}) });
    if (ended && typeof heldMs === 'number') instruments.leadershipDuration.record(heldMs, { ...election, [ATTRIBUTE_NAMES.outcome]: String(event) });
  });

  const acquireChannel = diagnosticsChannel.tracingChannel(ACQUIRE_CHANNEL);
  acquireChannel.subscribe(acquireHandlers);
  diagnosticsChannel.subscribe(RELEASE_CHANNEL, onRelease);
  diagnosticsChannel.subscribe(LOST_CHANNEL, onLost);
  diagnosticsChannel.subscribe(SESSION_CHANNEL, onSession);
  diagnosticsChannel.subscribe(LEADERSHIP_CHANNEL, onLeadership);

  let subscribed = true;
  const uninstrument = (): void => {
    if (!subscribed) return;
    subscribed = false;
    acquireChannel.unsubscribe(acquireHandlers);
    diagnosticsChannel.unsubscribe(RELEASE_CHANNEL, onRelease);
    diagnosticsChannel.unsubscribe(LOST_CHANNEL, onLost);
    diagnosticsChannel.unsubscribe(SESSION_CHANNEL, onSession);
    diagnosticsChannel.unsubscribe(LEADERSHIP_CHANNEL, onLeadership);
    acquisitions.abandonAll();
  };
  return { uninstrument, [Symbol.dispose]: uninstrument };
}

/**
 * A subscriber that never throws: diagnostics_channel would rethrow it as an uncaught exception
 * in the observed process. A failure (a `lockName` that throws) goes to OpenTelemetry's diag log.
 */
function guarded<T>(event: string, handler: (message: T) => void): (message: T) => void {
  return (message) => {
    try {
      handler(message);
    } catch (err) {
      diag.error(`${SCOPE_NAME}: recording ${event} failed`, err);
    }
  };
}
