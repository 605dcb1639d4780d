import { readFileSync } from 'node:fs';

/** The instrumentation scope the meter and the tracer are named after: this package. */
export const SCOPE_NAME = '@zk-recipes/opentelemetry';

/** This package's version (its package.json sits next to src/ and dist/ alike), or undefined. */
export function scopeVersion(): string | undefined {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : undefined;
  } catch {
    return undefined;
  }
}
