import type { z } from 'zod';
import { InvalidArgumentError } from '../errors.js';

/**
 * Validates `input` against `schema` and returns the parsed value. On failure throws an
 * {@link InvalidArgumentError} whose message names the offending option (zod's issues in `cause`).
 *
 * @param what - the function or constructor being configured, e.g. `exponentialBackoff`
 * @internal
 */
export function parseOptions<S extends z.ZodType>(what: string, schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const details = result.error.issues
    .map((issue) => {
      const key = issue.path.map(String).join('.');
      return key === '' ? issue.message : `option "${key}": ${issue.message}`;
    })
    .join('; ');
  throw new InvalidArgumentError(`${what}: ${details}`, { cause: result.error });
}
