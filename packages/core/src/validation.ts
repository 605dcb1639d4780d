import { InvalidArgumentError } from './errors.js';

/** One problem a schema found in an input: where (property names and indexes) and what. */
export interface ValidationIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/**
 * What {@link parseOptions} needs of a schema: a `safeParse` that returns the parsed value or the
 * issues found. Spelled out here, and matched structurally by the schemas the recipes use, so that
 * no validation library's types are part of zk-recipes' declarations.
 */
export interface OptionsSchema {
  safeParse(input: unknown): { success: true; data: unknown } | { success: false; error: { issues: readonly ValidationIssue[] } };
}

/** The value `Schema` gives for a valid input (with its defaults applied). */
export type ParsedBy<Schema extends OptionsSchema> = Extract<ReturnType<Schema['safeParse']>, { success: true }>['data'];

/**
 * Parses `input` with a schema at a public boundary; on failure throws an `InvalidArgumentError`
 * whose message lists every problem (`cause` holds the schema's error).
 *
 * @internal for zk-recipes packages; not part of the public API
 */
export function parseOptions<Schema extends OptionsSchema>(schema: Schema, input: unknown, where: string): ParsedBy<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data as ParsedBy<Schema>;
  const problems = result.error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(value)'}: ${issue.message}`)
    .join('; ');
  throw new InvalidArgumentError(`${where}: invalid options: ${problems}`, { cause: result.error });
}
