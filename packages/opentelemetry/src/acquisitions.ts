import { performance } from 'node:perf_hooks';
import { SpanKind, SpanStatusCode, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import type { AcquireContext } from '@zk-recipes/core';
import type { Instruments } from './instruments.js';
import { ATTRIBUTE_NAMES } from './names.js';

/** One acquisition between its `start` and its outcome. */
interface InFlight {
  readonly startedAt: number;
  /** recipe and path: the attributes of the waiters series, the same at +1 and -1. */
  readonly lockAttributes: Attributes;
  readonly span: Span;
  /** The `error` event came before `end`: a synchronous throw, which has no asyncEnd. */
  erroredBeforeEnd: boolean;
  ended: boolean;
}

/**
 * Turns the tracing channel `zk-recipes:acquire` into the acquire metrics and span. An
 * acquisition starts at `start` and ends at `asyncEnd` (resolved or rejected), or at `end` when
 * it threw before returning its promise (the tracing channel then publishes no asyncEnd).
 */
export class AcquisitionRecorder {
  private readonly inFlight = new Map<object, InFlight>();

  constructor(
    private readonly instruments: Instruments,
    private readonly tracer: Tracer,
    private readonly attributesOf: (recipe: string, path: string) => Attributes,
  ) {}

  start(context: AcquireContext): void {
    const recipe = String(context.recipe);
    const lockAttributes = this.attributesOf(recipe, String(context.path));
    const attributes: Attributes = { ...lockAttributes };
    if (typeof context.kind === 'string') attributes[ATTRIBUTE_NAMES.kind] = context.kind;
    if (typeof context.sessionId === 'string') attributes[ATTRIBUTE_NAMES.sessionId] = context.sessionId;
    if (typeof context.leases === 'number') attributes[ATTRIBUTE_NAMES.leases] = context.leases;
    // Started in the caller's async context: the caller's active span is its parent.
    const span = this.tracer.startSpan(`zk-recipes acquire ${recipe}`, { kind: SpanKind.INTERNAL, attributes });
    this.inFlight.set(context, { startedAt: performance.now(), lockAttributes, span, erroredBeforeEnd: false, ended: false });
    this.instruments.waiters.add(1, lockAttributes);
  }

  error(context: AcquireContext): void {
    const state = this.inFlight.get(context);
    if (state !== undefined && !state.ended) state.erroredBeforeEnd = true;
  }

  end(context: AcquireContext): void {
    const state = this.inFlight.get(context);
    if (state === undefined) return;
    state.ended = true;
    if (state.erroredBeforeEnd) this.finish(context);
  }

  asyncEnd(context: AcquireContext): void {
    this.finish(context);
  }

  /** Ends what is still open (uninstrument()): the spans end without an outcome, the waiters go back to 0. */
  abandonAll(): void {
    for (const [context, state] of this.inFlight) {
      this.inFlight.delete(context);
      this.instruments.waiters.add(-1, state.lockAttributes);
      state.span.end();
    }
  }

  private finish(context: AcquireContext): void {
    const state = this.inFlight.get(context);
    if (state === undefined) return;
    this.inFlight.delete(context);
    const failed = context.error !== undefined || state.erroredBeforeEnd;
    const outcome = outcomeOf(context, failed);
    const waitMs = typeof context.waitMs === 'number' && Number.isFinite(context.waitMs) ? context.waitMs : performance.now() - state.startedAt;
    const attributes: Attributes = { ...state.lockAttributes, [ATTRIBUTE_NAMES.outcome]: outcome };
    this.instruments.waiters.add(-1, state.lockAttributes);
    this.instruments.acquisitions.add(1, attributes);
    this.instruments.acquireDuration.record(waitMs, attributes);

    const { span } = state;
    span.setAttribute(ATTRIBUTE_NAMES.outcome, outcome);
    if (typeof context.node === 'string') span.setAttribute(ATTRIBUTE_NAMES.node, context.node);
    if (typeof context.fencingToken === 'bigint') span.setAttribute(ATTRIBUTE_NAMES.fencingToken, String(context.fencingToken));
    if (failed) {
      const code = errorCodeOf(context.error);
      span.setAttribute(ATTRIBUTE_NAMES.errorType, code);
      if (context.error instanceof Error) span.recordException(context.error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: code });
    }
    span.end();
  }
}

/** The context's outcome; for a context that carries none, what its error says. */
function outcomeOf(context: AcquireContext, failed: boolean): string {
  if (typeof context.outcome === 'string') return context.outcome;
  if (!failed) return 'granted';
  const code = errorCodeOf(context.error);
  return code === 'LOCK_TIMEOUT' ? 'timeout' : code === 'ABORTED' ? 'aborted' : 'failed';
}

/** A zk-recipes error's stable `code`; another error's name; `_OTHER` as OpenTelemetry's `error.type` says. */
export function errorCodeOf(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const { code, name } = error as { code?: unknown; name?: unknown };
    if (typeof code === 'string' && code !== '') return code;
    if (typeof name === 'string' && name !== '') return name;
  }
  return '_OTHER';
}
