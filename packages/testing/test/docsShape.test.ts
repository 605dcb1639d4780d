/**
 * The guides stay skimmable and their sections stay where the code says they are: every page of
 * docs/ opens with prose saying what it is for before its first section, no table cell of the
 * README or docs/ runs longer than a short sentence (the detail goes below the table), and every
 * section the code cites (`docs/<page>.md, "<section title>"`) is a heading of that page.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
/** The longest table cell, in characters of Markdown source: about two lines of a rendered table. */
const MAX_CELL = 200;

const docs = readdirSync(join(repoRoot, 'docs'))
  .filter((file) => file.endsWith('.md'))
  .map((file) => ({ page: `docs/${file}`, markdown: readFileSync(join(repoRoot, 'docs', file), 'utf8') }));
const guides = [{ page: 'README.md', markdown: readFileSync(join(repoRoot, 'README.md'), 'utf8') }, ...docs];

/** The lines outside fenced code blocks, with their numbers from 1. */
function proseLines(markdown: string): { line: string; n: number }[] {
  let fenced = false;
  return markdown.split('\n').flatMap((line, i) => {
    if (line.startsWith('```')) {
      fenced = !fenced;
      return [];
    }
    return fenced ? [] : [{ line, n: i + 1 }];
  });
}

/** A page's headings, backticks dropped, as the code cites them. */
function headingTitles(markdown: string): Set<string> {
  const titles = new Set<string>();
  for (const { line } of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading !== null) titles.add(heading[1]!.replace(/`/g, '').trim());
  }
  return titles;
}

/** Source files that may cite the docs: the packages, scripts and examples (not bench/: see below). */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(name) ? [path] : [];
  });
}

describe('the docs stay skimmable', () => {
  it.each(docs.map(({ page, markdown }) => [page, markdown] as const))('%s opens with prose before its first section', (page, markdown) => {
    const lines = proseLines(markdown).map(({ line }) => line);
    expect(lines[0], `${page} starts with its title`).toMatch(/^# /);
    const firstSection = lines.findIndex((line, i) => i > 0 && /^#{2,6}\s/.test(line));
    const opening = lines.slice(1, firstSection === -1 ? undefined : firstSection);
    expect(opening.some((line) => /^[A-Za-z`*[(]/.test(line)), `${page}: no text between the title and the first section`).toBe(true);
  });

  it(`no table cell of the README or docs/ is longer than ${MAX_CELL} characters`, () => {
    const long: string[] = [];
    for (const { page, markdown } of guides) {
      for (const { line, n } of proseLines(markdown)) {
        if (!line.startsWith('|')) continue;
        for (const cell of line.replace(/\\\|/g, '  ').split('|').slice(1, -1)) {
          if (cell.trim().length > MAX_CELL) long.push(`${page}:${n}: ${cell.trim().length} characters: ${cell.trim().slice(0, 60)}...`);
        }
      }
    }
    expect(long).toEqual([]);
  });
});

describe("the code's citations of the docs", () => {
  // bench/ and docs/benchmarks.md change with the benchmarks themselves, which keep their own.
  const files = ['packages', 'scripts', 'examples'].flatMap((dir) => sourceFiles(join(repoRoot, dir)));
  const titles = new Map(docs.map(({ page, markdown }) => [page, headingTitles(markdown)]));

  it('name a page that exists and, when they name a section, a heading of that page', () => {
    const broken: string[] = [];
    let sections = 0;
    for (const file of files) {
      // A citation may break across comment lines: join them first.
      const text = readFileSync(file, 'utf8').replace(/\n\s*(?:\*(?!\/)|\/\/)\s*/g, ' ');
      for (const [citation, page, section] of text.matchAll(/docs\/([a-z0-9-]+\.md)(?:,\s+"([^"]+)")?/g)) {
        if (page === 'benchmarks.md') continue;
        const found = titles.get(`docs/${page}`);
        if (found === undefined) broken.push(`${relative(repoRoot, file)}: ${citation} (no such page)`);
        else if (section !== undefined) {
          sections++;
          if (!found.has(section.replace(/`/g, '').trim())) broken.push(`${relative(repoRoot, file)}: ${citation} (no such heading)`);
        }
      }
    }
    expect(sections, 'citations of sections found').toBeGreaterThan(100);
    expect(broken).toEqual([]);
  });
});
