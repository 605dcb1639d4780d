import type { MeterProvider, TracerProvider } from '@opentelemetry/api';

/**
 * Names a lock for the `zk_recipes.path` attribute, e.g. `/jobs/1234/lock` → `/jobs/{id}/lock`:
 * every distinct value is a time series of its own, so paths that carry ids need it.
 */
export type LockName = (path: string, recipe: string) => string;

/** Options of {@link instrument}. */
export interface InstrumentOptions {
  /** Where the instruments are created. Default: the global one (`metrics.getMeterProvider()`). */
  meterProvider?: MeterProvider;
  /** Where the acquire spans are created. Default: the global one (`trace.getTracerProvider()`). */
  tracerProvider?: TracerProvider;
  /** The `zk_recipes.path` attribute's value for a lock. Default: its path. */
  lockName?: LockName;
}

/**
 * Checks the options' types: a mistake there shows at the call, not as a subscriber that
 * throws inside the library on the first acquisition.
 */
export function checkOptions(options: InstrumentOptions): void {
  if (typeof options !== 'object' || options === null) throw new TypeError('instrument(): options must be an object');
  if (options.lockName !== undefined && typeof options.lockName !== 'function') throw new TypeError('instrument(): lockName must be a function (path, recipe) => string');
  for (const key of ['meterProvider', 'tracerProvider'] as const) {
    const provider = options[key];
    const method = key === 'meterProvider' ? 'getMeter' : 'getTracer';
    if (provider !== undefined && typeof (provider as unknown as Record<string, unknown>)[method] !== 'function') {
      throw new TypeError(`instrument(): ${key} must have ${method}()`);
    }
  }
}
