/**
 * The packed-consumer check: what a user gets from npm, not what the workspace sees.
 * Starts from a fresh checkout (the files git tracks, as the working tree has them: no
 * node_modules, no dist/) and runs the README's install commands there as a shell runs them: `npm
 * ci` and `npm pack --workspaces` (each package's `prepack` builds it; neither may warn), then
 * `npm install` of the tarballs the README names in an app of its own, where it runs the README's
 * first example with plain `node`. It installs every tarball in another fresh project outside the
 * repository, and there
 *  - imports every entry point of every package by name,
 *  - runs each recipe README's first `js` example with plain `node` against a server of our own
 *    (it must exit by itself, with 0),
 *  - type-checks a TypeScript consumer, strict and without skipLibCheck, under each module
 *    resolution we support,
 *  - loads the packages from CommonJS (require(esm)) and type-checks a CommonJS TypeScript consumer,
 *  - runs a first test of @zk-recipes/testing: a TestingServer started, used and stopped, and the
 *    process exits by itself (Java and ZooKeeper are here: this check's own server needs them),
 *  - finds no declaration that names zod,
 *  - runs the `zk-recipes` bin (@zk-recipes/cli) as `npx` would, against that server,
 *  - records a lock with @zk-recipes/opentelemetry into the OpenTelemetry SDK a user installs.
 * One pack, one install for all of it but the README's own.
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstCodeBlock } from '../src/firstCodeBlock.js';
import { runCommand, runCommandOrFail, describeCommandResult, type CommandResult } from '../src/runCommand.js';
import { TestingServer } from '../src/TestingServer.js';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const fixtures = fileURLToPath(new URL('./fixtures/consumer/', import.meta.url));
const tsc = join(repoRoot, 'node_modules/typescript/bin/tsc');

/** The packages users install: the recipes, and the test servers and fault helpers for their tests. */
const PUBLISHED = ['core', 'mutex', 'read-write-lock', 'semaphore', 'multi-lock', 'leader', 'testing', 'cli', 'opentelemetry'];
/**
 * The README's install commands (its first `sh` block) as a shell script, without its `git clone`:
 * the test puts a fresh copy of the working tree where the clone would be.
 */
const README_INSTALL = firstCodeBlock(readFileSync(join(repoRoot, 'README.md'), 'utf8'), 'sh') ?? '';
const CLONE = 'git clone https://github.com/zk-recipes/zk-recipes.git\n';
/** Packages whose README starts with a runnable example. */
const WITH_EXAMPLE = ['mutex', 'read-write-lock', 'semaphore', 'multi-lock', 'leader'];

/** A README example gets this long to connect, lock, unlock and exit by itself. */
const EXAMPLE_BOUND_MS = 30_000;
const INSTALL_BOUND_MS = 240_000;
/** A ZooKeeper JVM starts in seconds on an idle machine; two busy cores make it slower. */
const TESTING_SERVER_BOUND_MS = 60_000;
/** Type-checking without skipLibCheck reads all of @types/node: seconds of CPU per configuration. */
const TSC_BOUND_MS = 300_000;

/** TypeScript settings of an ES module consumer (its package.json says "type": "module"). */
const ESM_MODES = [
  { name: 'node16', module: 'node16', moduleResolution: 'node16' },
  { name: 'nodenext', module: 'nodenext', moduleResolution: 'nodenext' },
  { name: 'bundler', module: 'esnext', moduleResolution: 'bundler' },
];

/** TypeScript settings of a CommonJS consumer (no "type" in its package.json). */
const CJS_MODES = [
  { name: 'node20', module: 'node20', moduleResolution: 'node16' },
  { name: 'nodenext', module: 'nodenext', moduleResolution: 'nodenext' },
  // The legacy resolution: "main" and "types", no "exports"; TypeScript compiles imports to require().
  { name: 'node10', module: 'commonjs', moduleResolution: 'node10' },
];

/**
 * Our environment, less what would make a child differ from a user's shell: NODE_OPTIONS (a test
 * runner's loaders or `--conditions`) and the variables `npm run` sets about this repository.
 */
function userEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env['NODE_OPTIONS'];
  for (const key of Object.keys(env)) {
    const keep = /^npm_config_(cache|registry|userconfig|(https_)?proxy|noproxy)$/.test(key);
    if (key.startsWith('npm_') && !keep) delete env[key];
  }
  return env;
}

/**
 * A checkout as `git clone` gives it, of the working tree as it is now: the files git tracks (and
 * new ones it does not ignore), without node_modules, dist/ or any other build output.
 */
function freshCheckout(into: string): void {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repoRoot, encoding: 'utf8' });
  for (const file of listed.split('\0')) {
    if (file === '' || !existsSync(join(repoRoot, file))) continue; // deleted in the working tree
    mkdirSync(dirname(join(into, file)), { recursive: true });
    copyFileSync(join(repoRoot, file), join(into, file));
  }
}

/**
 * A tsconfig as a Node project writes it: strict, Node 20's language (no DOM), @types/node, and
 * no skipLibCheck, so our declarations and everything they pull in are checked too.
 */
function writeTsconfig(dir: string, name: string, mode: { module: string; moduleResolution: string }, file: string): string {
  const configFile = join(dir, `tsconfig.${name}.json`);
  const compilerOptions = {
    strict: true,
    noEmit: true,
    target: 'ES2022',
    lib: ['ES2023'],
    module: mode.module,
    moduleResolution: mode.moduleResolution,
    types: ['node'],
  };
  writeFileSync(configFile, JSON.stringify({ compilerOptions, files: [file] }, null, 2));
  return configFile;
}

describe('the packed packages in a fresh project', () => {
  let server: TestingServer;
  let workDir: string;
  let consumerDir: string;
  let cjsDir: string;

  let readmeInstall: CommandResult;
  let tarballs: string[];
  let readmeAppDir: string;

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'zkr-consumer-'));
    // Where the README's commands put them: the clone, the tarballs beside it, and the user's app.
    const checkoutDir = join(workDir, 'zk-recipes');
    const packDir = join(workDir, 'zk-recipes-tarballs');
    readmeAppDir = join(workDir, 'your-app');
    consumerDir = join(workDir, 'consumer');
    cjsDir = join(consumerDir, 'cjs');
    mkdirSync(cjsDir, { recursive: true });
    mkdirSync(readmeAppDir);
    const starting = TestingServer.start({ forceSync: false });
    try {
      freshCheckout(checkoutDir);
      writeFileSync(join(readmeAppDir, 'package.json'), JSON.stringify({ name: 'your-app', private: true }, null, 2));
      // npm ci, then npm pack with no build before it (each package's `prepack` builds it), then
      // the app's install of the tarballs it names; npm's cache stands in for the registry.
      expect(README_INSTALL.startsWith(CLONE), `README.md's install block starts with ${CLONE}`).toBe(true);
      readmeInstall = await runCommandOrFail('sh', ['-e', '-c', README_INSTALL.slice(CLONE.length)], {
        cwd: workDir,
        env: { ...userEnvironment(), npm_config_prefer_offline: 'true' },
        timeoutMs: 3 * INSTALL_BOUND_MS,
      });
      tarballs = readdirSync(packDir).map((file) => join(packDir, file));
      expect(tarballs.map((file) => /zk-recipes-([a-z-]+)-\d[^/]*\.tgz$/.exec(file)?.[1]).sort()).toEqual([...PUBLISHED].sort());

      writeFileSync(join(consumerDir, 'package.json'), JSON.stringify({ name: 'zkr-consumer', private: true, type: 'module' }, null, 2));
      writeFileSync(join(cjsDir, 'package.json'), JSON.stringify({ name: 'zkr-cjs-consumer', private: true }, null, 2));
      // The same @types/node as the repository's: already in npm's cache.
      const versionOf = (name: string) => (JSON.parse(readFileSync(join(repoRoot, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
      // With @zk-recipes/opentelemetry, the OpenTelemetry API and SDK a user would install: the
      // repository's versions, in npm's cache too.
      const alsoInstalled = ['@types/node', '@opentelemetry/api', '@opentelemetry/sdk-metrics', '@opentelemetry/sdk-trace-base'].map((name) => `${name}@${versionOf(name)}`);
      await runCommandOrFail('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...tarballs, ...alsoInstalled], {
        cwd: consumerDir,
        env: userEnvironment(),
        timeoutMs: INSTALL_BOUND_MS,
      });
      for (const file of ['esm-consumer.ts', 'testing-server.mjs', 'otel-consumer.mjs', 'import-packages.mjs']) copyFileSync(join(fixtures, file), join(consumerDir, file));
      for (const file of ['cjs-consumer.ts', 'require-packages.cjs']) copyFileSync(join(fixtures, file), join(cjsDir, file));
    } finally {
      server = await starting;
    }
  }, 5 * INSTALL_BOUND_MS);

  afterAll(async () => {
    await server?.stop();
    if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
  });

  it("the README's install commands print no warning: npm ci (no dependency install script left unreviewed: package.json's allowScripts), npm pack, npm install", () => {
    expect(readmeInstall.stderr.split('\n').filter((line) => /^npm warn/i.test(line)), describeCommandResult(readmeInstall)).toEqual([]);
  });

  it('`npm pack --workspaces` on a fresh checkout builds first: every tarball carries dist/ (what "main" and "exports" name)', () => {
    for (const tarball of tarballs) {
      const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n');
      expect(files, tarball).toEqual(expect.arrayContaining(['package/dist/index.js', 'package/dist/index.d.ts']));
    }
  });

  it('every entry point of every installed package loads by name under plain node', async () => {
    const run = await runCommandOrFail(process.execPath, ['import-packages.mjs'], { cwd: consumerDir, env: userEnvironment(), timeoutMs: EXAMPLE_BOUND_MS });
    const loaded = run.stdout.trim().split('\n').map((line) => line.split(' ')[0]);
    expect(loaded).toEqual(
      expect.arrayContaining([...PUBLISHED.map((name) => `@zk-recipes/${name}`), '@zk-recipes/core/recipe-kit', '@zk-recipes/core/internal', '@zk-recipes/testing/globalSetup', '@zk-recipes/testing/errorTally']),
    );
  });

  it("the README's first example, as first.mjs under plain node, in the app its install commands made", async () => {
    const example = firstCodeBlock(readFileSync(join(repoRoot, 'README.md'), 'utf8'), 'js');
    expect(example, 'README.md has no ```js block').toBeDefined();
    writeFileSync(join(readmeAppDir, 'first.mjs'), example!);
    const run = await runCommand(process.execPath, ['first.mjs'], {
      cwd: readmeAppDir,
      env: userEnvironment({ ZK_CONNECT: server.connectString }),
      timeoutMs: EXAMPLE_BOUND_MS,
    });
    expect(run.exitCode === 0 && !run.timedOut, `README.md's first example:\n${describeCommandResult(run)}`).toBe(true);
  });

  it('installed the tarballs: real directories, not links into the workspace', () => {
    for (const name of PUBLISHED) {
      const installed = join(consumerDir, 'node_modules/@zk-recipes', name);
      expect(lstatSync(installed).isSymbolicLink(), installed).toBe(false);
      expect(lstatSync(join(installed, 'dist/index.d.ts')).isFile(), installed).toBe(true);
    }
  });

  it('no declaration file names zod (a runtime dependency only: its types would be type-checked in every consumer)', () => {
    const naming = PUBLISHED.flatMap((name) => {
      const dist = join(consumerDir, 'node_modules/@zk-recipes', name, 'dist');
      const declarations = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.d.ts'));
      return declarations.filter((file) => readFileSync(join(dist, file), 'utf8').includes('zod')).map((file) => `@zk-recipes/${name}/dist/${file}`);
    });
    expect(naming).toEqual([]);
  });

  it.each(WITH_EXAMPLE)("%s: the README's first example runs under plain node and exits by itself", async (name) => {
    const example = firstCodeBlock(readFileSync(join(repoRoot, 'packages', name, 'README.md'), 'utf8'), 'js');
    expect(example, `packages/${name}/README.md has no \`\`\`js block`).toBeDefined();
    writeFileSync(join(consumerDir, 'first.mjs'), example!);
    const run = await runCommand(process.execPath, ['first.mjs'], {
      cwd: consumerDir,
      env: userEnvironment({ ZK_CONNECT: server.connectString }),
      timeoutMs: EXAMPLE_BOUND_MS,
    });
    expect(run.exitCode === 0 && !run.timedOut, `packages/${name}/README.md's first example:\n${describeCommandResult(run)}`).toBe(true);
  });

  it('@zk-recipes/testing: a program starts a TestingServer, connects, stops it and exits by itself', async () => {
    const run = await runCommand(process.execPath, ['testing-server.mjs'], { cwd: consumerDir, env: userEnvironment(), timeoutMs: TESTING_SERVER_BOUND_MS });
    expect(run.exitCode === 0 && !run.timedOut, `testing-server.mjs:\n${describeCommandResult(run)}`).toBe(true);
    expect(run.stdout).toMatch(/^TestingServer 127\.0\.0\.1:\d+ answered, stopped$/m);
  });

  it('@zk-recipes/cli: the installed `zk-recipes` bin runs under plain node: inspect sees a lock held by another process', async () => {
    const bin = join(consumerDir, 'node_modules/.bin/zk-recipes');
    const help = await runCommandOrFail(bin, ['--help'], { cwd: consumerDir, env: userEnvironment(), timeoutMs: EXAMPLE_BOUND_MS });
    expect(help.stdout).toMatch(/^Usage: zk-recipes <command>/);
    // A holder in a process of its own, then the CLI, then the holder lets go when told.
    writeFileSync(
      join(consumerDir, 'holder.mjs'),
      [
        "import { ZkSession } from '@zk-recipes/core';",
        "import { InterProcessMutex } from '@zk-recipes/mutex';",
        'const session = await ZkSession.connect({ connectString: process.env.ZK_CONNECT });',
        "const lock = await new InterProcessMutex(session, '/locks/cli-consumer').acquire();",
        "console.log('held');",
        "process.stdin.once('data', async () => { await lock.release(); await session.close(); });",
      ].join('\n'),
    );
    const holder = spawn(process.execPath, ['holder.mjs'], { cwd: consumerDir, env: userEnvironment({ ZK_CONNECT: server.connectString }), stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout.on('data', (chunk: Buffer) => (chunk.toString().includes('held') ? resolve() : undefined));
        holder.once('exit', (code) => reject(new Error(`holder.mjs exited with ${code} before holding`)));
      });
      const run = await runCommandOrFail(bin, ['inspect', '/locks/cli-consumer', '--json'], {
        cwd: consumerDir,
        env: userEnvironment({ ZK_CONNECT: server.connectString }),
        timeoutMs: EXAMPLE_BOUND_MS,
      });
      expect(JSON.parse(run.stdout)).toMatchObject({ recipe: 'mutex', holders: 1, waiters: 0 });
    } finally {
      holder.stdin.end('release\n');
      await new Promise((resolve) => (holder.exitCode === null ? holder.once('exit', resolve) : resolve(undefined)));
    }
  });

  it('@zk-recipes/opentelemetry: instrument() from the installed package records a lock of the installed recipes into the SDK', async () => {
    const run = await runCommandOrFail(process.execPath, ['otel-consumer.mjs'], {
      cwd: consumerDir,
      env: userEnvironment({ ZK_CONNECT: server.connectString }),
      timeoutMs: EXAMPLE_BOUND_MS,
    });
    const lines = run.stdout.trim().split('\n').sort();
    expect(lines).toEqual(
      expect.arrayContaining([
        'metric zk_recipes.lock.acquisitions',
        'metric zk_recipes.lock.acquire.duration',
        'metric zk_recipes.lock.hold.duration',
        'metric zk_recipes.lock.waiters',
        'metric zk_recipes.session.state_changes',
        'span zk-recipes acquire mutex granted',
      ]),
    );
  });

  it('require() from CommonJS gets core and every recipe package (the ES modules loaded synchronously) and locks with InterProcessMutex', async () => {
    const run = await runCommandOrFail(process.execPath, ['require-packages.cjs'], {
      cwd: cjsDir,
      env: userEnvironment({ ZK_CONNECT: server.connectString }),
      timeoutMs: EXAMPLE_BOUND_MS,
    });
    expect(run.stdout).toMatch(/required InterProcessMutex, held with token \d+/);
  });

  // The two type-checks are independent processes of seconds of CPU each: they run side by side.
  it.concurrent(
    `type-checks, strict and without skipLibCheck: the ES module consumer (${ESM_MODES.map((m) => m.name).join(', ')}), the CommonJS one (${CJS_MODES.map((m) => m.name).join(', ')})`,
    async () => {
      const configs = [
        ...ESM_MODES.map((mode) => writeTsconfig(consumerDir, `esm-${mode.name}`, mode, 'esm-consumer.ts')),
        ...CJS_MODES.map((mode) => writeTsconfig(cjsDir, `cjs-${mode.name}`, mode, 'cjs-consumer.ts')),
      ];
      // One build of all configurations: tsc -b reads the libraries and our declarations once.
      // --verbose names each configuration before its errors.
      await runCommandOrFail(process.execPath, [tsc, '-b', '--verbose', ...configs], { cwd: consumerDir, env: userEnvironment(), timeoutMs: TSC_BOUND_MS });
    },
    TSC_BOUND_MS,
  );

  it.concurrent(
    'a CommonJS consumer with module node16 is told to use import() (TypeScript models Node 16, which had no require(esm))',
    async ({ expect }) => {
      const config = writeTsconfig(cjsDir, 'cjs-node16', { module: 'node16', moduleResolution: 'node16' }, 'cjs-consumer.ts');
      const check = await runCommand(process.execPath, [tsc, '-p', config], { cwd: cjsDir, env: userEnvironment(), timeoutMs: TSC_BOUND_MS });
      expect(check.stdout, describeCommandResult(check)).toMatch(/error TS1479/);
      const otherErrors = check.stdout.match(/error TS\d+/g)?.filter((code) => code !== 'error TS1479') ?? [];
      expect(otherErrors, describeCommandResult(check)).toEqual([]);
    },
    TSC_BOUND_MS,
  );
});
