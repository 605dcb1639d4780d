import type { z } from 'zod';
import { InvalidArgumentError } from './errors.js';

/**
 * Parses `input` with a zod schema at a public boundary; on failure throws an
 * `InvalidArgumentError` whose message lists every problem (`cause` holds zod's error).
 */
export function parseOptions<S extends z.ZodType>(schema: S, input: unknown, where: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(value)'}: ${issue.message}`)
    .join('; ');
  throw new InvalidArgumentError(`${where}: invalid options: ${problems}`, { cause: result.error });
}
