/**
 * @zk-recipes/opentelemetry: OpenTelemetry metrics and traces of zk-recipes' locks, recorded from
 * the library's diagnostics channels through `@opentelemetry/api` (docs/observability.md,
 * "OpenTelemetry").
 *
 * @module @zk-recipes/opentelemetry
 */
export { instrument, type Instrumentation } from './instrument.js';
export type { InstrumentOptions, LockName } from './options.js';
export { ATTRIBUTE_NAMES, DURATION_BUCKETS_MS, METRIC_NAMES } from './names.js';
