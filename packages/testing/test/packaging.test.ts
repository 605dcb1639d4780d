/**
 * What each package's tarball holds (`npm pack --dry-run`): the licence, the README, the built
 * code and its types; never a build cache. Its package.json carries the metadata npm shows (the
 * repository, homepage, issues, keywords, author) and publishes publicly with provenance; its
 * README, the package's npm page, links only to absolute URLs (the tarball has no ../../docs).
 * Needs the build (`npm test` runs `tsc -b` first).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const REPO = 'https://github.com/zk-recipes/zk-recipes';

interface Packed {
  name: string;
  files: Array<{ path: string }>;
}

interface PackageJson {
  name: string;
  private?: boolean;
  keywords?: string[];
  homepage?: string;
  bugs?: { url?: string };
  repository?: { type?: string; url?: string; directory?: string };
  author?: string;
  license?: string;
  publishConfig?: { access?: string; provenance?: boolean };
  scripts?: Record<string, string>;
}

const PACKAGES = ['@zk-recipes/core', '@zk-recipes/mutex', '@zk-recipes/read-write-lock', '@zk-recipes/semaphore', '@zk-recipes/multi-lock', '@zk-recipes/leader', '@zk-recipes/testing', '@zk-recipes/cli', '@zk-recipes/opentelemetry'];
const dirOf = (name: string) => name.replace('@zk-recipes/', '');
const readRepoFile = (relative: string) => readFileSync(`${repoRoot}/${relative}`, 'utf8');
const packageJson = (relative: string) => JSON.parse(readRepoFile(relative)) as PackageJson;

/** The names each declaration file exports, as TypeScript sees them (re-exports followed). */
function exportsOfDeclarations(relatives: string[]): Map<string, string[]> {
  const files = relatives.map((relative) => `${repoRoot}/${relative}`);
  const program = ts.createProgram(files, { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true, types: ['node'] });
  const checker = program.getTypeChecker();
  return new Map(
    relatives.map((relative, i) => {
      const module = checker.getSymbolAtLocation(program.getSourceFile(files[i]!)!)!;
      return [relative, checker.getExportsOfModule(module).map((symbol) => symbol.name)];
    }),
  );
}

describe('package tarballs', () => {
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--workspaces', '--ignore-scripts'], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
  ) as Packed[];

  it('covers every workspace package', () => {
    expect(packed.map((p) => p.name).sort()).toEqual([...PACKAGES].sort());
  });

  it.each(PACKAGES)('%s: LICENSE, README.md, dist/index.js and its types; no build cache, no tests or test fixtures', (name) => {
    const files = packed.find((p) => p.name === name)!.files.map((f) => f.path);
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'package.json']));
    if (name === '@zk-recipes/core') expect(files).toEqual(expect.arrayContaining(['dist/recipe-kit.js', 'dist/recipe-kit.d.ts', 'dist/internal.js', 'dist/internal.d.ts']));
    expect(files.filter((f) => f.includes('tsbuildinfo'))).toEqual([]);
    // Tests and this repository's own fixtures (the ACL tests' credentials) stay out of it.
    expect(files.filter((f) => /^(test|test-support)\//.test(f))).toEqual([]);
  });

  it('@zk-recipes/cli: its bin `zk-recipes` is dist/bin.js, in the tarball, a node script', () => {
    const files = packed.find((p) => p.name === '@zk-recipes/cli')!.files.map((f) => f.path);
    const { bin } = JSON.parse(readRepoFile('packages/cli/package.json')) as { bin: Record<string, string> };
    expect(bin).toEqual({ 'zk-recipes': './dist/bin.js' });
    expect(files).toContain('dist/bin.js');
    expect(readRepoFile('packages/cli/dist/bin.js').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });
});

describe('package metadata', () => {
  it.each(PACKAGES)('%s: repository, homepage, bugs, keywords, author; public, with provenance', (name) => {
    const dir = dirOf(name);
    const pkg = packageJson(`packages/${dir}/package.json`);
    expect(pkg.name).toBe(name);
    expect(pkg.private).toBeUndefined();
    expect(pkg.repository).toEqual({ type: 'git', url: `git+${REPO}.git`, directory: `packages/${dir}` });
    expect(pkg.homepage).toBe(`${REPO}/tree/main/packages/${dir}#readme`);
    expect(pkg.bugs).toEqual({ url: `${REPO}/issues` });
    expect(pkg.keywords).toEqual(expect.arrayContaining(['zookeeper']));
    expect(pkg.author).toBe('zk-recipes contributors');
    expect(pkg.license).toBe('Apache-2.0');
    expect(pkg.publishConfig).toEqual({ access: 'public', provenance: true });
  });

  // `main` and `exports` point into dist/, which a fresh clone has not: `npm pack` and `npm publish`
  // build it first (consumer.int.test.ts packs a fresh checkout and installs the result).
  it.each(PACKAGES)('%s: `prepack` builds it (tsc -b: the package and the packages it depends on)', (name) => {
    expect(packageJson(`packages/${dirOf(name)}/package.json`).scripts).toEqual({ prepack: 'tsc -b' });
  });

  // A consumer's toolchain that sets the common `source` condition (bundlers, TypeScript's
  // customConditions) must get our built code, not our .ts files: our sources hide behind a
  // condition of our own, which only this repository sets.
  it.each(PACKAGES)('%s: exports use no bare `source` condition; the sources only under `@zk-recipes/source`', (name) => {
    const pkg = JSON.parse(readRepoFile(`packages/${dirOf(name)}/package.json`)) as { exports: Record<string, Record<string, string>> };
    const conditions = Object.values(pkg.exports).flatMap((entry) => Object.keys(entry));
    expect(conditions).not.toContain('source');
    for (const entry of Object.values(pkg.exports)) {
      expect(Object.keys(entry)).toEqual(['@zk-recipes/source', 'types', 'default']);
      expect(entry['@zk-recipes/source']).toMatch(/^\.\/src\/.*\.ts$/);
    }
  });

  // Two subpaths beyond the root: the recipe kit (what recipe packages are built from, semver only
  // within a 0.x minor) and test-only views of a session (shipped: testing's nemesis worker imports
  // it; not public API).
  it('@zk-recipes/core: `./recipe-kit` and `./internal` are its only subpaths, shipped, kept out of the root, and documented', () => {
    const pkg = JSON.parse(readRepoFile('packages/core/package.json')) as {
      exports: Record<string, Record<string, string>>;
      types: string;
      typesVersions: Record<string, Record<string, string[]>>;
    };
    expect(Object.keys(pkg.exports)).toEqual(['.', './recipe-kit', './internal']);
    expect(pkg.exports['./recipe-kit']!['default']).toBe('./dist/recipe-kit.js');
    expect(pkg.exports['./internal']!['default']).toBe('./dist/internal.js');
    // The recipes' declarations name the kit: TypeScript's node10 resolution, which ignores
    // "exports", finds its types through typesVersions.
    expect(pkg.typesVersions).toEqual({ '*': { 'recipe-kit': [pkg.exports['./recipe-kit']!['types']] } });
    expect(readRepoFile('packages/core/src/index.ts')).not.toMatch(/internal\.js|sessionInternals|recipe-kit\.js/);
    const doc = readRepoFile('docs/packaging.md');
    expect(doc).toMatch(/`@zk-recipes\/core\/internal`[^\n]*\*\*not public API\*\*/);
    expect(doc).toMatch(/`@zk-recipes\/core\/recipe-kit`[^\n]*semantic versioning only within a 0\.x minor/);
  });

  // What applications import stays apart from what recipes are built from: the root's
  // declarations (and its module at run time) carry none of the engine's parts, the kit all of them.
  describe('@zk-recipes/core: the root export is the applications\' API; the engine is in ./recipe-kit', () => {
    const APPLICATION = ['ZkSession', 'exponentialBackoff', 'sessionFailedRetryPolicy', 'runWithRetry', 'isZkError', 'ZkRecipesError', 'LockTimeoutError', 'LockHandle', 'AcquireOptions', 'LockEvents', 'SETTLE_SLACK_MS', 'requestRevocation', 'encodeOwnerData', 'parseOwnerData', 'ACQUIRE_CHANNEL', 'AcquireContext', 'LostMessage'];
    const ENGINE = [
      'LockQueue', 'keepPlaceAfterLeaving', 'QueueLock', 'QueueSeat', 'QueueNode', 'acquireVia', 'tryAcquireVia', 'withLockVia', 'parseAcquireOptions',
      'OwnerFrame', 'OwnerHoldings', 'currentFrame', 'continueInFrame', 'runInFrame', 'Deadline', 'followFirst', 'settleByOf', 'settleWithin',
      'sessionEnded', 'pauseAfterLostSession', 'StopSignal', 'publishLost', 'publishRelease', 'publishLeadership', 'lostChannel', 'releaseChannel',
      'leadershipChannel', 'disposeHandle', 'runThenRelease', 'AssertTrue', 'TypesEqual', 'parseOptions', 'OptionsSchema', 'OrderingRule',
      'Decision', 'Hints', 'decideWithHints', 'exclusiveRule', 'withoutHints', 'waitUntilGone', 'listAndWatchChildren', 'checkSharedNodeAcl',
      'RetryBudget', 'abortableSleep', 'sortedChildren', 'validateLockPath', 'joinPath', 'nodeDataOf',
    ];
    const declared = exportsOfDeclarations(['packages/core/dist/index.d.ts', 'packages/core/dist/recipe-kit.d.ts']);
    const root = declared.get('packages/core/dist/index.d.ts')!;
    const kit = declared.get('packages/core/dist/recipe-kit.d.ts')!;

    it('the root declares the application names and none of the engine names; the kit declares every engine name', () => {
      expect(APPLICATION.filter((name) => !root.includes(name))).toEqual([]);
      expect(ENGINE.filter((name) => root.includes(name))).toEqual([]);
      expect(ENGINE.filter((name) => !kit.includes(name))).toEqual([]);
    });

    it('no name is exported from both (one place to import each from)', () => {
      expect(root.filter((name) => kit.includes(name))).toEqual([]);
    });

    it('the built root module, loaded as a user loads it, carries no engine value', async () => {
      const loaded = Object.keys((await import(`${repoRoot}/packages/core/dist/index.js`)) as object);
      expect(loaded).toEqual(expect.arrayContaining(['ZkSession', 'exponentialBackoff', 'requestRevocation', 'ACQUIRE_CHANNEL']));
      expect(ENGINE.filter((name) => loaded.includes(name))).toEqual([]);
      const kitLoaded = Object.keys((await import(`${repoRoot}/packages/core/dist/recipe-kit.js`)) as object);
      expect(kitLoaded).toEqual(expect.arrayContaining(['LockQueue', 'QueueLock', 'acquireVia', 'OwnerFrame', 'publishLost']));
    }, 60_000); // loading the built packages from disk: seconds on a busy machine (vitest's 5 s default ran out at load 25)
  });

  // A second copy of @opentelemetry/api would have globals of its own: the user's SDK would never
  // see our instruments. So the API is a peer (the user's copy), and the SDK only tests us.
  it('@zk-recipes/opentelemetry: @opentelemetry/api only, as a peer dependency of 1.9.x; the SDK only a devDependency', () => {
    const pkg = JSON.parse(readRepoFile('packages/opentelemetry/package.json')) as Record<string, Record<string, string> | undefined>;
    expect(pkg['peerDependencies']).toEqual({ '@opentelemetry/api': '>=1.9.0 <1.10.0' });
    expect(Object.keys(pkg['dependencies'] ?? {}).filter((name) => name.startsWith('@opentelemetry/'))).toEqual([]);
    expect(Object.keys(pkg['devDependencies'] ?? {}).sort()).toEqual(['@opentelemetry/api', '@opentelemetry/sdk-metrics', '@opentelemetry/sdk-trace-base']);
    const sources = readdirSync(`${repoRoot}/packages/opentelemetry/src`, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    const imported = sources.flatMap((file) => [...readRepoFile(`packages/opentelemetry/src/${file}`).matchAll(/from '(@opentelemetry\/[^']+)'/g)].map((m) => m[1]!));
    expect(new Set(imported)).toEqual(new Set(['@opentelemetry/api']));
  });

  it('the root: the same repository and issues, and it stays private (never published)', () => {
    const root = packageJson('package.json');
    expect(root.private).toBe(true);
    expect(root.publishConfig).toBeUndefined();
    expect(root.repository).toEqual({ type: 'git', url: `git+${REPO}.git` });
    expect(root.homepage).toBe(`${REPO}#readme`);
    expect(root.bugs).toEqual({ url: `${REPO}/issues` });
    expect(root.author).toBe('zk-recipes contributors');
  });

  it.each(PACKAGES)('%s: the README (its npm page) links only to absolute URLs', (name) => {
    const readme = readRepoFile(`packages/${dirOf(name)}/README.md`);
    expect(readme).not.toContain('](../');
    expect(readme).not.toContain('](./docs');
    // Every markdown link target: an absolute URL, or an anchor on the page itself.
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
    expect(targets.filter((t) => !/^(https:\/\/|#)/.test(t))).toEqual([]);
  });

  it.each(PACKAGES)('%s: the README says the default ACL is open, and links the security guide', (name) => {
    const readme = readRepoFile(`packages/${dirOf(name)}/README.md`);
    const line = readme.split('\n').find((l) => /default ACL is open/.test(l));
    expect(line).toBeDefined();
    expect(line).toContain(`](${REPO}/blob/main/docs/security.md)`);
  });

  // CI pastes the first code block of each recipe's README into a file and runs it with plain
  // `node` against a real server; here, what can be checked without one.
  it.each(['@zk-recipes/mutex', '@zk-recipes/read-write-lock', '@zk-recipes/semaphore', '@zk-recipes/multi-lock', '@zk-recipes/leader'])(
    '%s: the README opens with a plain-JavaScript program that runs as first.mjs on Node 20',
    (name) => {
      const readme = readRepoFile(`packages/${dirOf(name)}/README.md`);
      const first = /^```(\w*)\n([\s\S]*?)^```$/m.exec(readme);
      expect(first?.[1]).toBe('js');
      const program = first![2]!;
      const imported = [...program.matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
      expect(imported.sort()).toEqual(['@zk-recipes/core', name].sort());
      expect(program).toContain("process.env.ZK_CONNECT ?? '127.0.0.1:2181'");
      expect(program).not.toMatch(/\bawait using\b/);
      expect(program).not.toMatch(/:\s*(string|number|bigint|LockHandle|Leadership)\b|\bas [A-Z]\w*|<[A-Z]\w*>\(/); // no TypeScript
      expect(program.trimEnd().split('\n').slice(-2).join('\n')).toMatch(/await session\.close\(\);[^\n]*\n\}$/);
    },
  );
});

// The API reference (`npm run docs`, typedoc.json) names each module as users import it, opens on
// a page that links every one of them, and shows the leader elections' events on the classes.
describe('the API reference', () => {
  const typedoc = JSON.parse(readRepoFile('typedoc.json')) as { entryPoints: string[]; readme: string; plugin: string[] };
  /** Each entry point's import specifier, from its package's "exports" (the source condition names the file). */
  const specifierOf = (entry: string): string => {
    const dir = /^packages\/([^/]+)\//.exec(entry)![1]!;
    const pkg = JSON.parse(readRepoFile(`packages/${dir}/package.json`)) as { name: string; exports: Record<string, Record<string, string>> };
    const subpath = Object.entries(pkg.exports).find(([, conditions]) => conditions['@zk-recipes/source'] === `./${entry.slice(`packages/${dir}/`.length)}`)?.[0];
    expect(subpath, `${entry} is no export of ${pkg.name}`).toBeDefined();
    return subpath === '.' ? pkg.name : `${pkg.name}/${subpath!.slice(2)}`;
  };

  it.each(typedoc.entryPoints)('%s: its module is named by its import specifier (`@module`, in the comment that opens the file)', (entry) => {
    const source = readRepoFile(entry);
    expect(source.startsWith('/**')).toBe(true);
    const opening = source.slice(0, source.indexOf('*/'));
    expect(opening).toContain(`\n * @module ${specifierOf(entry)}\n`);
  });

  it('the landing page links every module, and citations of docs/ become links (checked by the plugin)', () => {
    const landing = readRepoFile(typedoc.readme);
    expect(typedoc.entryPoints.map(specifierOf).filter((specifier) => !landing.includes(`{@link "${specifier}"!`))).toEqual([]);
    expect(typedoc.plugin).toEqual(['./scripts/typedocDocLinks.mjs']);
  });

  it.each(['LeaderLatch', 'LeaderSelector'])('%s: its class comment lists every event of LeaderEvents', (name) => {
    const source = readRepoFile(`packages/leader/src/${name}.ts`);
    const classComment = source.slice(source.lastIndexOf('/**', source.indexOf(`export class ${name}`)), source.indexOf(`export class ${name}`));
    const events = readRepoFile('packages/leader/src/Election.ts');
    const declared = [...events.slice(events.indexOf('export interface LeaderEvents'), events.indexOf('}\n', events.indexOf('export interface LeaderEvents'))).matchAll(/^ {2}(\w+): \(/gm)].map((m) => m[1]!);
    expect(declared).toEqual(['isLeader', 'notLeader', 'error']);
    for (const event of declared) expect(classComment).toMatch(new RegExp(`^ \\* - \`${event}\\(`, 'm'));
  });
});

describe('versions and changelogs (docs/releasing.md)', () => {
  const config = JSON.parse(readRepoFile('.changeset/config.json')) as {
    fixed: string[][];
    access: string;
    baseBranch: string;
    privatePackages: { version: boolean; tag: boolean };
  };

  it('every published package is in one fixed group (they depend on each other exactly); public; main; the private root left alone', () => {
    expect(config.fixed).toHaveLength(1);
    expect([...config.fixed[0]!].sort()).toEqual([...PACKAGES].sort());
    expect(config.access).toBe('public');
    expect(config.baseBranch).toBe('main');
    expect(config.privatePackages).toEqual({ version: false, tag: false });
  });

  // Each pending changeset (.changeset/*.md but the README): front matter naming packages and
  // bumps, then the text users read in the changelog.
  const changesets = readdirSync(`${repoRoot}/.changeset`)
    .filter((file) => file.endsWith('.md') && file !== 'README.md')
    .map((file) => {
      const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(readRepoFile(`.changeset/${file}`));
      const releases = (match?.[1] ?? '').split('\n').filter((line) => line.trim() !== '').map((line) => {
        const entry = /^\s*['"]?([^'":]+)['"]?\s*:\s*(\w+)\s*$/.exec(line);
        return { name: entry?.[1] ?? line, bump: entry?.[2] ?? '' };
      });
      return { file, releases, text: match?.[2]?.trim() ?? '' };
    });

  it('changesets: each names only our packages, patch or minor while at 0.x, says something, and a minor one (breaking) says "Breaking:"', () => {
    const zeroX = (JSON.parse(readRepoFile('packages/core/package.json')) as { version: string }).version.startsWith('0.');
    expect(changesets.length).toBeGreaterThan(0);
    for (const { file, releases, text } of changesets) {
      expect(releases.length, file).toBeGreaterThan(0);
      for (const { name, bump } of releases) {
        expect(PACKAGES, `${file}: ${name}`).toContain(name);
        expect(zeroX ? ['patch', 'minor'] : ['patch', 'minor', 'major'], `${file}: ${name}: ${bump}`).toContain(bump);
      }
      expect(text, file).not.toBe('');
      const breaking = releases.some(({ bump }) => bump === (zeroX ? 'minor' : 'major'));
      if (breaking) expect(text, `${file} is breaking: say "Breaking:" and how to migrate`).toMatch(/\bBreaking( \([^)]*\))?:/);
    }
  });

  it.each(PACKAGES)('%s: a CHANGELOG.md with an entry for its current version, the same version as every other package', (name) => {
    const dir = dirOf(name);
    const { version } = JSON.parse(readRepoFile(`packages/${dir}/package.json`)) as { version: string };
    expect(version).toBe((JSON.parse(readRepoFile('packages/core/package.json')) as { version: string }).version);
    const changelog = readRepoFile(`packages/${dir}/CHANGELOG.md`);
    expect(changelog.startsWith(`# ${name}\n`)).toBe(true);
    expect(changelog).toContain(`\n## ${version}\n`);
  });
});
