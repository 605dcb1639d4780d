/**
 * What each package's tarball holds (`npm pack --dry-run`): the licence, the README, the built
 * code and its types; never a build cache. Needs the build (`npm test` runs `tsc -b` first).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

interface Packed {
  name: string;
  files: Array<{ path: string }>;
}

describe('package tarballs', () => {
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--workspaces', '--ignore-scripts'], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
  ) as Packed[];

  it('covers every workspace package', () => {
    expect(packed.map((p) => p.name).sort()).toEqual(
      ['@zk-recipes/core', '@zk-recipes/multi-lock', '@zk-recipes/mutex', '@zk-recipes/read-write-lock', '@zk-recipes/semaphore', '@zk-recipes/testing'].sort(),
    );
  });

  it.each(['@zk-recipes/core', '@zk-recipes/mutex', '@zk-recipes/read-write-lock', '@zk-recipes/semaphore', '@zk-recipes/multi-lock', '@zk-recipes/testing'])(
    '%s: LICENSE, README.md, dist/index.js and its types; no build cache',
    (name) => {
      const files = packed.find((p) => p.name === name)!.files.map((f) => f.path);
      expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'package.json']));
      expect(files.filter((f) => f.includes('tsbuildinfo'))).toEqual([]);
    },
  );
});
