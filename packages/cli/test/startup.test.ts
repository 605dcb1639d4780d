/**
 * What the `zk-recipes` bin loads before it answers: `--version` and `--help` load the CLI's own
 * few modules and nothing else (no @zk-recipes/core, no zod, no recipe); a command loads what it
 * runs when it runs. Counted by module hooks on the built bin (dist/, as users run it: needs the
 * build, which `npm test` runs first), under plain node.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const cliDist = fileURLToPath(new URL('../dist/', import.meta.url));
const bin = join(cliDist, 'bin.js');
const recordLoads = fileURLToPath(new URL('./support/recordLoads.mjs', import.meta.url));
const logDir = mkdtempSync(join(tmpdir(), 'zkr-cli-loads-'));
afterAll(() => rmSync(logDir, { recursive: true, force: true }));

/** What the bin prints for `args`, and every module it loaded: the CLI's own relative to its dist/, others as URLs. */
function loadsOf(args: string[]): { stdout: string; modules: string[] } {
  const log = join(logDir, `${args.join('_')}.log`);
  const env: NodeJS.ProcessEnv = { ...process.env, ZKR_LOAD_LOG: log };
  delete env['NODE_OPTIONS'];
  delete env['ZK_CONNECT'];
  let stdout: string;
  try {
    stdout = execFileSync(process.execPath, ['--import', recordLoads, bin, ...args], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    stdout = (err as { stdout: string }).stdout;
  }
  const own = pathToFileURL(cliDist).href;
  const modules = readFileSync(log, 'utf8')
    .split('\n')
    .filter((url) => url !== '' && url !== pathToFileURL(recordLoads).href && !url.startsWith('node:'))
    .map((url) => (url.startsWith(own) ? url.slice(own.length) : url));
  return { stdout, modules };
}

/** The modules `--version` and `--help` need: the bin, the command line, its errors and how it prints. */
const LIGHT = ['bin.js', 'main.js', 'lock/CliError.js', 'options/UsageError.js', 'options/connectionOptions.js', 'text/limits.js', 'text/printable.js'];

describe('zk-recipes start-up', () => {
  it('--version loads the CLI\'s own 7 modules: no @zk-recipes/core, no zod, no recipe', () => {
    const { stdout, modules } = loadsOf(['--version']);
    expect(stdout).toMatch(/^\d+\.\d+\.\d+/);
    expect([...modules].sort()).toEqual([...LIGHT].sort());
  });

  it('--help loads the same, and no more', () => {
    const { stdout, modules } = loadsOf(['--help']);
    expect(stdout).toMatch(/^Usage: zk-recipes <command>/);
    expect([...modules].sort()).toEqual([...LIGHT].sort());
  });

  it('a command loads what it runs: `ls --help` brings in @zk-recipes/core (and zod), `--version` did not', () => {
    const { stdout, modules } = loadsOf(['ls', '--help']);
    expect(stdout).toMatch(/^Usage: zk-recipes ls /);
    expect(modules).toContain('commands/ls.js');
    expect(modules.some((url) => url.endsWith('/core/dist/index.js'))).toBe(true);
  });
});
