/**
 * The docs a user reads hold: every relative link resolves (its file, and its heading when it names
 * one), every code block marked `runnable` runs against a real server and exits by itself, and no
 * page names one of the project's issue numbers (history belongs in changelogs and git).
 *
 * A runnable block is a fenced `ts` or `js` block whose info string says `runnable`
 * (```ts runnable). It runs as written, `ZK_CONNECT` naming the test server, and must exit with 0
 * on its own: a `ts` block through tsx with the sources of this repository; a `js` block as a
 * user runs it, saved as an `.mjs` file under plain `node` (no loader, no export condition: the
 * packages' built `dist/`, so it needs the build, which `npm test` runs first). A service's block
 * (`sigterm-on=<text>`) gets SIGTERM once it has printed `<text>`, and must then exit with 0 on its
 * own, as under an orchestrator stopping it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { githubSlug as slug } from '../../../scripts/githubSlug.mjs';
import { firstCodeBlock } from '../src/firstCodeBlock.js';
import { nodeScriptArgs } from '../src/nodeScriptArgs.js';
import { testConnectString } from '../src/testConnectString.js';
import { runnableBlocks } from './runnableBlocks.js';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
/** Where runnable blocks are written (inside the repository, so the workspace's packages resolve). */
const runDir = join(repoRoot, 'packages', 'testing', '.docs-run');

/** The pages users read: the README, docs/, and each package's npm page. */
function pages(): string[] {
  const docs = readdirSync(join(repoRoot, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join('docs', f));
  const packages = readdirSync(join(repoRoot, 'packages'))
    .map((name) => join('packages', name, 'README.md'))
    .filter((path) => existsSync(join(repoRoot, path)));
  return ['README.md', ...docs, ...packages];
}

/** Every anchor a page has: its headings' slugs (numbered when repeated) and explicit ids. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced) continue;
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading !== null) {
      const base = slug(heading[1]!);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const id of line.matchAll(/<a (?:id|name)="([^"]+)"/g)) anchors.add(id[1]!);
  }
  return anchors;
}

/** The Markdown outside fenced code blocks and inline code. */
function prose(markdown: string): string {
  let fenced = false;
  return markdown
    .split('\n')
    .filter((line) => {
      if (line.startsWith('```')) {
        fenced = !fenced;
        return false;
      }
      return !fenced;
    })
    .join('\n')
    .replace(/`[^`\n]*`/g, '');
}

const all = pages().map((page) => ({ page, markdown: readFileSync(join(repoRoot, page), 'utf8') }));

afterAll(() => rmSync(runDir, { recursive: true, force: true }));

describe('the docs', () => {
  it('every relative link resolves: its file, and its heading when it names one', () => {
    const broken: string[] = [];
    for (const { page, markdown } of all) {
      for (const match of prose(markdown).matchAll(/\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = match[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
        const [file, anchor] = target.split('#') as [string, string | undefined];
        const path = file === '' ? join(repoRoot, page) : resolve(dirname(join(repoRoot, page)), file);
        if (!existsSync(path)) {
          broken.push(`${page}: ${target} (no ${relative(repoRoot, path)})`);
          continue;
        }
        if (anchor !== undefined && anchor !== '' && path.endsWith('.md') && !anchorsOf(readFileSync(path, 'utf8')).has(anchor)) {
          broken.push(`${page}: ${target} (no heading #${anchor} in ${relative(repoRoot, path)})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it("names none of the project's issue numbers", () => {
    const found: string[] = [];
    for (const { page, markdown } of all) {
      markdown.split('\n').forEach((line, i) => {
        if (/\bissues?\s+#?\d+\b/i.test(line) || /\b(?:PR|pull request)\s+#?\d+\b/i.test(line)) found.push(`${page}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(found).toEqual([]);
  });

  const blocks = all.flatMap(({ page, markdown }) => runnableBlocks(page, markdown));
  it('has code blocks marked runnable', () => {
    expect(blocks.length).toBeGreaterThan(0);
  });
  it.each(blocks.map((block) => [`${block.page}:${block.line}`, block] as const))('%s runs against a real server and exits by itself', async (_where, block) => {
    mkdirSync(runDir, { recursive: true });
    const file = join(runDir, `${block.page.replace(/[^a-z0-9]+/gi, '-')}-${block.line}.${block.language === 'ts' ? 'mts' : 'mjs'}`);
    writeFileSync(file, block.code);
    const result = await run(block.language === 'ts' ? nodeScriptArgs(file) : [file], 60_000, block.sigtermOn);
    expect(result, `${block.page}:${block.line}\n${block.code}`).toMatchObject({ exitCode: 0, ...(block.sigtermOn === undefined ? {} : { sigtermSent: true }) });
  });

  it("the README's first code block is JavaScript that plain node runs on Node.js 20 (no `await using`, no TypeScript)", () => {
    const readme = all.find(({ page }) => page === 'README.md')!.markdown;
    // The first JavaScript or TypeScript block: runnable (so the test above runs it with plain node).
    expect(readme.split('\n').find((line) => /^```(js|ts)\b/.test(line))).toBe('```js runnable');
    expect(firstCodeBlock(readme, 'js')).not.toMatch(/\bawait using\b/);
  });
});

/** Runs a block's file; with `sigtermOn`, sends SIGTERM once the output contains it. */
function run(args: string[], boundMs: number, sigtermOn?: string): Promise<{ exitCode: number | null; sigtermSent: boolean; output: string }> {
  return new Promise((resolvePromise) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ZK_CONNECT: testConnectString() };
    // Plain node: no loader or condition of the test runner's.
    delete env['NODE_OPTIONS'];
    const child = spawn(process.execPath, args, {
      cwd: repoRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let sigtermSent = false;
    const heard = (chunk: Buffer): void => {
      output += chunk.toString();
      if (sigtermOn !== undefined && !sigtermSent && output.includes(sigtermOn)) sigtermSent = child.kill('SIGTERM');
    };
    child.stdout.on('data', heard);
    child.stderr.on('data', heard);
    const timer = setTimeout(() => child.kill('SIGKILL'), boundMs);
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      resolvePromise({ exitCode, sigtermSent, output });
    });
  });
}
