/**
 * The BASE build of `npm run bench:compare`: a temporary `git worktree` of the base commit, with
 * dependencies (links into this checkout's node_modules when package-lock.json is the same, else
 * `npm ci`), the compare worker copied in, and, with `--dist`, compiled. Removed by `dispose()`.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

export interface BaseTree {
  /** The checkout's directory. */
  dir: string;
  /** The commit checked out (full hash). */
  commit: string;
  /** `git describe`-like label: short hash and subject. */
  label: string;
  /** How its dependencies were installed. */
  dependencies: 'linked' | 'npm ci';
  /** Removes the worktree (idempotent). */
  dispose(): void;
}

function git(repo: string, args: readonly string[]): string {
  return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** The commit `rev` names; without one, where HEAD left `main` (its merge-base with main or origin/main). */
export function resolveBase(repo: string, rev: string | undefined): string {
  if (rev !== undefined) return git(repo, ['rev-parse', '--verify', `${rev}^{commit}`]);
  for (const main of ['main', 'origin/main']) {
    try {
      return git(repo, ['merge-base', 'HEAD', main]);
    } catch {
      // no such branch here: try the next
    }
  }
  throw new Error('bench:compare: no branch main to take the merge-base with; name the base with --base <rev>');
}

/**
 * node_modules for `dir` made of links into `repo`'s: every package links to the same install,
 * except the workspace packages (`@zk-recipes/*`), which link to `dir`'s own sources. Valid only
 * when both checkouts have the same package-lock.json.
 */
function linkDependencies(repo: string, dir: string): void {
  const from = join(repo, 'node_modules');
  const to = join(dir, 'node_modules');
  mkdirSync(to);
  for (const entry of readdirSync(from)) {
    if (entry === '@zk-recipes') continue;
    symlinkSync(join(from, entry), join(to, entry));
  }
  mkdirSync(join(to, '@zk-recipes'));
  for (const pkg of readdirSync(join(from, '@zk-recipes'))) {
    // Workspace links are relative (../../packages/<name>): the same link points into `dir`.
    symlinkSync(readlinkSync(join(from, '@zk-recipes', pkg)), join(to, '@zk-recipes', pkg));
  }
  for (const pkg of readdirSync(join(repo, 'packages'))) {
    const nested = join(repo, 'packages', pkg, 'node_modules');
    if (existsSync(nested) && existsSync(join(dir, 'packages', pkg)) && !existsSync(join(dir, 'packages', pkg, 'node_modules'))) {
      symlinkSync(nested, join(dir, 'packages', pkg, 'node_modules'));
    }
  }
}

/**
 * Checks out `commit` into a temporary directory and makes it runnable: dependencies, the compare
 * worker (`workerFiles`, paths relative to `repo`, copied to the same place), and `tsc -b` when
 * `compile` is set.
 */
export function createBaseTree(repo: string, commit: string, options: { workerFiles: readonly string[]; compile: boolean; log: (m: string) => void }): BaseTree {
  const dir = mkdtempSync(join(tmpdir(), 'zkr-bench-base-'));
  let disposed = false;
  const dispose = (): void => {
    if (disposed) return;
    disposed = true;
    try {
      git(repo, ['worktree', 'remove', '--force', dir]);
    } catch {
      execFileSync('rm', ['-rf', dir]);
      git(repo, ['worktree', 'prune']);
    }
  };
  try {
    options.log(`base: git worktree add ${dir} ${commit.slice(0, 12)}`);
    git(repo, ['worktree', 'add', '--detach', dir, commit]);
    const sameLock = readFileSync(join(repo, 'package-lock.json'), 'utf8') === readFileSync(join(dir, 'package-lock.json'), 'utf8');
    if (sameLock) {
      linkDependencies(repo, dir);
    } else {
      options.log('base: package-lock.json differs from the working tree: npm ci');
      execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
    }
    for (const file of options.workerFiles) {
      mkdirSync(join(dir, relative(repo, join(repo, file, '..'))), { recursive: true });
      copyFileSync(join(repo, file), join(dir, file));
    }
    if (options.compile) {
      options.log('base: tsc -b');
      execFileSync(process.execPath, [join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-b'], { cwd: dir, stdio: 'inherit' });
    }
    return {
      dir,
      commit,
      label: git(repo, ['log', '-1', '--format=%h %s', commit]),
      dependencies: sameLock ? 'linked' : 'npm ci',
      dispose,
    };
  } catch (err) {
    dispose();
    throw err;
  }
}
