/** docs/errors.md names every error code the library can report (the reference must not fall behind). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const read = (relative: string) => readFileSync(fileURLToPath(new URL(relative, import.meta.url)), 'utf8');

describe('docs/errors.md', () => {
  it('has a row for every ErrorCode', () => {
    const source = read('../src/errors.ts');
    const union = source.slice(source.indexOf('export type ErrorCode'), source.indexOf(';', source.indexOf('export type ErrorCode')));
    const codes = [...union.matchAll(/'([A-Z_]+)'/g)].map((m) => m[1]!);
    expect(codes.length).toBeGreaterThan(15);
    const doc = read('../../../docs/errors.md');
    expect(codes.filter((code) => !doc.includes(`| \`${code}\` |`))).toEqual([]);
  });
});
