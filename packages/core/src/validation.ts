import { InvalidArgumentError, type ValidationIssue } from './errors.js';

/**
 * What {@link parseOptions} needs of a schema: a `safeParse` that returns the parsed value or the
 * issues found. Spelled out here, and matched structurally by the schemas the recipes use, so that
 * no validation library's types are part of zk-recipes' declarations.
 */
export interface OptionsSchema {
  /** Parses `input`: the value with its defaults applied, or every issue found. Never throws. */
  safeParse(input: unknown):
    | {
        /** Valid. */
        success: true;
        /** The parsed value. */
        data: unknown;
      }
    | {
        /** Invalid. */
        success: false;
        /** What was found. */
        error: {
          /** Every issue, each with its place. */
          issues: readonly ValidationIssue[];
        };
      };
}

/** The value `Schema` gives for a valid input (with its defaults applied). */
export type ParsedBy<Schema extends OptionsSchema> = Extract<
  ReturnType<Schema['safeParse']>,
  {
    /** The valid branch. */
    success: true;
  }
>['data'];

/**
 * Parses `input` with a schema at a public boundary; on failure throws an `InvalidArgumentError`
 * whose message lists every problem and whose `cause` is them, as plain `{ path, message }` issues.
 */
export function parseOptions<Schema extends OptionsSchema>(schema: Schema, input: unknown, where: string): ParsedBy<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data as ParsedBy<Schema>;
  const problems = result.error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(value)'}: ${issue.message}`)
    .join('; ');
  throw new InvalidArgumentError(`${where}: invalid options: ${problems}`, { issues: result.error.issues });
}
