/** docs/errors.md names every code the CLI itself reports, with its exit code (the reference must not fall behind). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLI_ERROR_EXIT } from '../src/main.js';

const read = (relative: string) => readFileSync(fileURLToPath(new URL(relative, import.meta.url)), 'utf8');

describe('docs/errors.md', () => {
  it('has a row for every CliError code, with the exit code main() gives it', () => {
    const source = read('../src/lock/CliError.ts');
    const union = source.slice(source.indexOf('export type CliErrorCode'), source.indexOf(';', source.indexOf('export type CliErrorCode')));
    const codes = [...union.matchAll(/'([A-Z_]+)'/g)].map((m) => m[1]!);
    expect(codes).toContain('NOT_A_LOCK_NODE');
    expect(Object.keys(CLI_ERROR_EXIT).sort()).toEqual([...codes].sort());
    const doc = read('../../../docs/errors.md');
    const cli = doc.slice(doc.indexOf('## The zk-recipes CLI'));
    expect(codes.filter((code) => !new RegExp(`\\| \`${code}\` \\| ${CLI_ERROR_EXIT[code as keyof typeof CLI_ERROR_EXIT]} \\|`).test(cli))).toEqual([]);
  });
});
