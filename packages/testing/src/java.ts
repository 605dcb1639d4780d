/**
 * The Apache Curator peer: small Java programs (`bench/java/src`) compiled against the Debian
 * Curator 5.4 jars, run as child processes that print one JSON object per line. Interop tests use
 * them to prove that our recipes and Curator's exclude each other; benchmarks use them for
 * Curator's side-by-side figures.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { delimiter, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { guardChild } from './processGuard.js';

const execFileAsync = promisify(execFile);

/** Repository root, from `packages/testing/src` (tests) or `packages/testing/dist` (built). */
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SOURCES_DIR = join(REPO_ROOT, 'bench', 'java', 'src');
const CACHE_DIR = join(REPO_ROOT, 'node_modules', '.cache', 'zk-recipes-java');

/** The entry point of every mode (see `CuratorWorker.java` for the modes and their arguments). */
export const CURATOR_WORKER_CLASS = 'zkrecipes.CuratorWorker';

/**
 * The jars the programs need, all from Debian packages: `libcurator-recipes-java` pulls in the
 * Curator client/framework, ZooKeeper and Guava; `libslf4j-java` supplies slf4j-nop, which keeps
 * Curator's and ZooKeeper's logging off the JSON output.
 */
const REQUIRED_JARS = [
  'curator-client.jar',
  'curator-framework.jar',
  'curator-recipes.jar',
  'zookeeper.jar',
  'zookeeper-jute.jar',
  'guava.jar',
  'slf4j-api.jar',
  'slf4j-nop.jar',
] as const;

const APT_JARS = 'sudo apt-get install -y libcurator-recipes-java libslf4j-java';
const APT_JDK = 'sudo apt-get install -y default-jdk-headless';

/** What {@link ensureCuratorPrograms} produced. */
export interface CuratorPrograms {
  /** Compiled classes first, then the Curator jars; pass it to `java -cp`. */
  classpath: string;
  /** The `java` launcher to run them with. */
  javaBin: string;
}

/** Directory holding the jars: `ZK_RECIPES_JAVA_LIB` or Debian's `/usr/share/java`. */
function jarDir(): string {
  return process.env['ZK_RECIPES_JAVA_LIB'] ?? '/usr/share/java';
}

/** `$JAVA_HOME/bin/<tool>` when JAVA_HOME is set, else the first `<tool>` on PATH, else null. */
function findJdkTool(tool: 'java' | 'javac'): string | null {
  const javaHome = process.env['JAVA_HOME'];
  if (javaHome !== undefined && javaHome !== '') {
    const candidate = join(javaHome, 'bin', tool);
    if (existsSync(candidate)) return candidate;
  }
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, tool);
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

async function listSources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listSources(full)));
    else if (entry.name.endsWith('.java')) out.push(full);
  }
  return out.sort();
}

let compiled: Promise<CuratorPrograms> | undefined;

/**
 * Compiles the Curator programs once per source change and returns how to run them. The classes
 * go to `node_modules/.cache/zk-recipes-java/<hash of sources, jars and javac>`; a cache hit costs
 * only reading the sources. Safe to call from concurrent test workers: each compiles into a private
 * directory and the first finished rename wins.
 *
 * @throws Error naming the apt-get command to run when `javac`, `java` or a Curator jar is missing,
 *   or with javac's output when compilation fails
 */
export function ensureCuratorPrograms(): Promise<CuratorPrograms> {
  compiled ??= compile().catch((err: unknown) => {
    // Let a later call try again (e.g. after the missing package was installed).
    compiled = undefined;
    throw err;
  });
  return compiled;
}

async function compile(): Promise<CuratorPrograms> {
  const javac = findJdkTool('javac');
  const javaBin = findJdkTool('java');
  if (javac === null || javaBin === null) {
    throw new Error(
      `The Curator interop programs need a JDK (${javac === null ? 'javac' : 'java'} not found on PATH or in JAVA_HOME). ` +
        `Install one with: ${APT_JDK}`,
    );
  }
  const dir = jarDir();
  const jars = REQUIRED_JARS.map((jar) => join(dir, jar));
  const missing = REQUIRED_JARS.filter((_, i) => !existsSync(jars[i]!));
  if (missing.length > 0) {
    throw new Error(
      `Apache Curator jars missing from ${dir}: ${missing.join(', ')}. Install them with: ${APT_JARS} ` +
        '(or point ZK_RECIPES_JAVA_LIB at a directory holding them).',
    );
  }
  const jarClasspath = jars.join(delimiter);

  const sources = await listSources(SOURCES_DIR);
  if (sources.length === 0) throw new Error(`no Java sources under ${SOURCES_DIR}`);
  const hash = createHash('sha256');
  hash.update(`${realpathSync(javac)}\0${jarClasspath}\0`);
  for (const file of sources) {
    hash.update(`${relative(SOURCES_DIR, file)}\0`);
    hash.update(await readFile(file));
    hash.update('\0');
  }
  const classesDir = join(CACHE_DIR, hash.digest('hex').slice(0, 16));
  const classpath = [classesDir, jarClasspath].join(delimiter);
  const marker = join(classesDir, '.complete');
  if (existsSync(marker)) return { classpath, javaBin };

  await mkdir(CACHE_DIR, { recursive: true });
  const tmp = await mkdtemp(join(CACHE_DIR, 'tmp-'));
  try {
    try {
      await execFileAsync(
        javac,
        ['-encoding', 'UTF-8', '-nowarn', '-Xlint:-path', '-d', tmp, '-cp', jarClasspath, ...sources],
        { maxBuffer: 16 * 1024 * 1024 },
      );
    } catch (err) {
      const stderr = (err as { stderr?: string }).stderr ?? '';
      throw new Error(`javac failed for the Curator interop programs:\n${stderr}`, { cause: err });
    }
    await writeFile(join(tmp, '.complete'), new Date().toISOString());
    try {
      await rename(tmp, classesDir);
    } catch (err) {
      // Another worker finished first; its classes are identical.
      if (!existsSync(marker)) throw err;
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  return { classpath, javaBin };
}

/** One line of a worker's output. Every line has a `type`; see `CuratorWorker.java`. */
export interface CuratorLine {
  /**
   * `ready`, `section`, `done`, `event`, `bench`, `names`, `clock`, `error`, `leader` (a term of
   * leadership begins), `participants` (an election as Curator reports it), or `text` (not JSON).
   */
  type: string;
  /** `java-<pid>`. */
  worker?: string;
  [key: string]: unknown;
}

/** A critical section reported by a worker; times are CLOCK_MONOTONIC ns, like `process.hrtime.bigint()`. */
export interface CuratorSection {
  /** The worker's name. */
  worker: string;
  /** `mutex`, `read`, `write`, `lease` or `leader` (a term of leadership). */
  lock: string;
  /** When the section started. */
  start: bigint;
  /** When it ended. */
  end: bigint;
}

/** Options of {@link spawnCuratorWorker}. */
export interface SpawnCuratorWorkerOptions {
  /** JVM options placed before the class name. Default: `-XX:+UseSerialGC` (less JVM startup work). */
  javaOptions?: readonly string[];
  /** Environment of the JVM; defaults to this process's. */
  env?: NodeJS.ProcessEnv;
}

/** A running Curator worker process and its parsed output. */
export interface CuratorWorker {
  /** The JVM's process. */
  readonly child: ChildProcess;
  /** Its process id. */
  readonly pid: number;
  /** Every stdout line so far, parsed. */
  readonly lines: readonly CuratorLine[];
  /** stderr so far (stack traces, usage errors). */
  readonly stderr: string;
  /**
   * The first line, already received or still to come, that matches `predicate`.
   * Rejects when the process exits first or after `timeoutMs` (default 60 s).
   */
  waitForLine(predicate: (line: CuratorLine) => boolean, timeoutMs?: number): Promise<CuratorLine>;
  /** Writes `go` to stdin; the worker must have been started with `--wait-go`. */
  go(): void;
  /** All lines once the process has exited with status 0; rejects with its stderr otherwise or on timeout. */
  finished(timeoutMs?: number): Promise<readonly CuratorLine[]>;
  /** The critical sections reported so far. */
  sections(): CuratorSection[];
  /** SIGTERM (Curator closes its session), then SIGKILL after `graceMs`; resolves once exited. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Compiles the programs if needed and starts `CuratorWorker <args>`, e.g.
 * `['--wait-go', 'mutex', connectString, '/locks/a', '100', '5']`.
 */
export async function spawnCuratorWorker(
  args: readonly string[],
  options: SpawnCuratorWorkerOptions = {},
): Promise<CuratorWorker> {
  const { classpath, javaBin } = await ensureCuratorPrograms();
  const javaOptions = options.javaOptions ?? ['-XX:+UseSerialGC'];
  const child = spawn(javaBin, [...javaOptions, '-cp', classpath, CURATOR_WORKER_CLASS, ...args], {
    env: options.env ?? process.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // A JVM left behind by a crashed test run would hold its ZooKeeper session and locks.
  const disarm = child.pid === undefined ? (): void => undefined : guardChild(child.pid);

  const lines: CuratorLine[] = [];
  let stderr = '';
  const waiters = new Set<() => void>();
  const notify = (): void => {
    for (const w of [...waiters]) w();
  };

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (code, signal) => {
      disarm();
      resolve({ code, signal });
    });
  });
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
    notify();
  });
  const spawnError = new Promise<never>((_, reject) => child.once('error', reject));
  spawnError.catch(() => undefined);

  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    // Keep the tail only: a looping failure must not grow without bound.
    stderr = (stderr + chunk).slice(-64 * 1024);
  });
  // Its stdin closes when the JVM exits; a late `go` must not crash the test.
  child.stdin!.on('error', () => undefined);
  createInterface({ input: child.stdout! }).on('line', (text) => {
    let parsed: CuratorLine;
    try {
      const value: unknown = JSON.parse(text);
      parsed =
        typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string'
          ? (value as CuratorLine)
          : { type: 'text', text };
    } catch {
      parsed = { type: 'text', text };
    }
    lines.push(parsed);
    notify();
  });

  const pid = child.pid;
  if (pid === undefined) {
    await spawnError;
    throw new Error(`could not start ${javaBin}`);
  }

  const describe = (): string => `Curator worker ${pid} (${args.join(' ')})`;

  const worker: CuratorWorker = {
    child,
    pid,
    get lines() {
      return lines;
    },
    get stderr() {
      return stderr;
    },
    waitForLine(predicate, timeoutMs = 60_000) {
      return new Promise<CuratorLine>((resolve, reject) => {
        const check = (): void => {
          const found = lines.find(predicate);
          if (found !== undefined) {
            finish();
            resolve(found);
          } else if (hasExited) {
            finish();
            reject(new Error(`${describe()} exited before the expected line; stderr:\n${stderr}`));
          }
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`${describe()}: expected line not seen within ${timeoutMs} ms; stderr:\n${stderr}`));
        }, timeoutMs);
        const finish = (): void => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    go() {
      child.stdin!.write('go\n');
    },
    async finished(timeoutMs = 120_000) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${describe()} still running after ${timeoutMs} ms; stderr:\n${stderr}`)),
          timeoutMs,
        );
      });
      try {
        const { code, signal } = await Promise.race([exited, timeout, spawnError]);
        if (code !== 0) {
          throw new Error(`${describe()} exited with ${signal ?? `status ${code}`}; stderr:\n${stderr}`);
        }
        return lines;
      } finally {
        clearTimeout(timer);
      }
    },
    sections() {
      return lines.filter((l) => l.type === 'section').map(toSection);
    },
    async stop(graceMs = 3_000) {
      if (!hasExited) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => {
          if (!hasExited) child.kill('SIGKILL');
        }, graceMs);
        await exited;
        clearTimeout(timer);
      }
    },
  };
  return worker;
}

function toSection(line: CuratorLine): CuratorSection {
  const { worker, lock, start, end } = line;
  if (typeof worker !== 'string' || typeof start !== 'string' || typeof end !== 'string') {
    throw new Error(`malformed section line: ${JSON.stringify(line)}`);
  }
  return { worker, lock: typeof lock === 'string' ? lock : 'mutex', start: BigInt(start), end: BigInt(end) };
}
