/**
 * One ZooKeeper server JVM: spawn from a config file, wait until it serves, and the fault
 * operations (SIGKILL, SIGSTOP/SIGCONT, graceful stop, restart). TestingServer and every
 * TestingCluster member are built on it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fourLetterWord, parseMode } from './fourLetterWord.js';
import { guardChild } from './processGuard.js';
import type { ZooKeeperInstall } from './zookeeperInstall.js';

/**
 * JVM flags: a small heap, and the serial collector (one GC thread; fastest start on 2 cores).
 * -XX:TieredStopAtLevel=1 was measured and did not start measurably faster (1.0-2.0 s either way
 * on a loaded 2-core machine) while it would slow the server under benchmark load, so it is off.
 */
export const DEFAULT_JVM_FLAGS: readonly string[] = ['-Xmx256m', '-XX:+UseSerialGC'];

/** The server main class; it runs standalone when the config names no peers. */
const MAIN_CLASS = 'org.apache.zookeeper.server.quorum.QuorumPeerMain';

export interface ZooKeeperProcessConfig {
  install: ZooKeeperInstall;
  /** Holds zoo.cfg, the logging configs, zookeeper.log and zookeeper.out. */
  dir: string;
  configFile: string;
  clientPort: number;
  systemProperties: Record<string, string>;
  /** Remove `dir` too if our process dies without stopping the server (temporary dirs). */
  removeDirOnOrphan: boolean;
  /** Modes `srvr` must report before the server counts as serving. */
  servingModes: readonly string[];
}

/** Thrown when a server does not come up; carries the tail of its logs. */
export class ServerStartError extends Error {
  /** The stable code to branch on. */
  readonly code = 'SERVER_START_FAILED';
  /** True when the log says the port was taken (the caller may retry on other ports). */
  readonly addressInUse: boolean;
  constructor(message: string, addressInUse: boolean) {
    super(message);
    this.name = 'ServerStartError';
    this.addressInUse = addressInUse;
  }
}

export class ZooKeeperProcess {
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private disarm: () => void = () => undefined;
  private paused = false;

  constructor(readonly config: ZooKeeperProcessConfig) {}

  /** PID of the running JVM, or -1 when none runs. */
  get pid(): number {
    return this.child?.pid ?? -1;
  }

  /** Whether a JVM is running (possibly paused). */
  get running(): boolean {
    return this.child !== null;
  }

  /** Spawns the JVM (does not wait for it to serve). */
  spawn(): void {
    if (this.child !== null) throw new Error(`server on port ${this.config.clientPort} is already running`);
    const { install, dir, configFile, systemProperties } = this.config;
    const props: Record<string, string> = {
      'zookeeper.log.dir': dir,
      'zookeeper.root.logger': 'INFO,FILE',
      'log4j.configuration': `file:${join(dir, 'log4j.properties')}`,
      'logback.configurationFile': join(dir, 'logback.xml'),
      'zookeeper.admin.enableServer': 'false',
      'zookeeper.jmx.log4j.disable': 'true',
      'java.net.preferIPv4Stack': 'true',
      // Transaction logs preallocate 64 MB by default; tests write little.
      'zookeeper.preAllocSize': '4096',
      ...systemProperties,
    };
    const args = [...DEFAULT_JVM_FLAGS, ...Object.entries(props).map(([k, v]) => `-D${k}=${v}`), '-cp', install.classpath, MAIN_CLASS, configFile];
    // JVM stdout/stderr (start-up failures, log4j warnings) go to a file, not the test output.
    const out = openSync(join(dir, 'zookeeper.out'), 'a');
    let child: ChildProcess;
    try {
      child = spawn(install.javaBin, args, { cwd: dir, stdio: ['ignore', out, out], detached: false });
    } finally {
      closeSync(out);
    }
    if (child.pid === undefined) throw new ServerStartError(`could not spawn ${install.javaBin}`, false);
    this.child = child;
    this.paused = false;
    this.disarm = guardChild(child.pid, this.config.removeDirOnOrphan ? dir : undefined);
    this.exited = new Promise<void>((resolve) => {
      child.once('exit', () => {
        if (this.child === child) this.child = null;
        this.disarm();
        resolve();
      });
      child.once('error', () => {
        if (this.child === child) this.child = null;
        resolve();
      });
    });
  }

  /**
   * Polls `srvr` until the server reports one of the serving modes. Fails at once if the JVM
   * exits, and after `timeoutMs` otherwise, with the tail of the server's logs.
   */
  async waitServing(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let gone = false;
    void this.exited.then(() => (gone = true));
    for (;;) {
      if (gone || this.child === null) throw this.startError('exited during start-up');
      try {
        const mode = parseMode(await fourLetterWord('127.0.0.1', this.config.clientPort, 'srvr', 1_000));
        if (mode !== null && this.config.servingModes.includes(mode)) return;
      } catch {
        // Not listening yet.
      }
      if (Date.now() > deadline) throw this.startError(`not serving after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Current `srvr` mode, or null when it does not answer (down, paused) or is not serving. */
  async mode(): Promise<string | null> {
    if (this.child === null) return null;
    try {
      return parseMode(await fourLetterWord('127.0.0.1', this.config.clientPort, 'srvr', 1_000));
    } catch {
      return null;
    }
  }

  /** SIGKILL; resolves when the JVM is gone. Keeps the data dir. */
  async kill(): Promise<void> {
    const child = this.child;
    if (child === null) return;
    child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM (ZooKeeper shuts down cleanly), SIGKILL after `graceMs`; resolves when gone. */
  async stop(graceMs = 5_000): Promise<void> {
    const child = this.child;
    if (child === null) return;
    // A stopped process does not handle SIGTERM; nothing graceful is possible then.
    if (this.paused) return this.kill();
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  /**
   * SIGSTOP: the JVM freezes with its sockets open (a hung server, not a dead one). Signal delivery
   * is asynchronous (each JVM thread stops when the kernel next schedules it), so this resolves
   * only once every thread is seen stopped in /proc: a paused server never answers afterwards.
   */
  async pause(): Promise<void> {
    const child = this.requireRunning();
    child.kill('SIGSTOP');
    this.paused = true;
    await this.waitThreads(child.pid!, true);
  }

  /** SIGCONT; resolves once no thread of the JVM is stopped any more. */
  async resume(): Promise<void> {
    const child = this.requireRunning();
    child.kill('SIGCONT');
    this.paused = false;
    await this.waitThreads(child.pid!, false);
  }

  private requireRunning(): ChildProcess {
    if (this.child === null || this.child.pid === undefined) throw new Error(`server on port ${this.config.clientPort} is not running`);
    return this.child;
  }

  /** Polls /proc/<pid>/task/<tid>/stat until all threads are (or none is) in state T. Linux only; elsewhere returns at once. */
  private async waitThreads(pid: number, stopped: boolean, timeoutMs = 10_000): Promise<void> {
    const taskDir = `/proc/${pid}/task`;
    if (!existsSync(taskDir)) return;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      let states: string[];
      try {
        // The state is the field after the parenthesised command name (which may contain spaces).
        states = readdirSync(taskDir).map((tid) => {
          const stat = readFileSync(`${taskDir}/${tid}/stat`, 'utf8');
          return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
        });
      } catch {
        return; // The process (or a thread) went away meanwhile: nothing left to wait for.
      }
      const isStopped = (st: string): boolean => st === 'T' || st === 't';
      if (stopped ? states.every(isStopped) : !states.some(isStopped)) return;
      if (Date.now() > deadline) throw new Error(`server pid ${pid}: threads not ${stopped ? 'stopped' : 'running'} after ${timeoutMs} ms (${states.join('')})`);
      await new Promise((r) => setTimeout(r, 2));
    }
  }

  private startError(what: string): ServerStartError {
    const read = (file: string): string => {
      const path = join(this.config.dir, file);
      return existsSync(path) ? readFileSync(path, 'utf8').trimEnd() : '';
    };
    const out = read('zookeeper.out');
    const log = read('zookeeper.log');
    const tail = (text: string): string => text.split('\n').slice(-25).join('\n');
    // The whole logs, not the tail: a quorum peer whose election port was taken logs the
    // BindException, retries, and exits (code 14) many lines later.
    const addressInUse = /Address already in use|BindException|electionPortBindRetry/.test(`${out}\n${log}`);
    const logs = `${tail(out)}\n${tail(log)}`.trim();
    return new ServerStartError(
      `ZooKeeper server on 127.0.0.1:${this.config.clientPort} ${what} (logs in ${this.config.dir}):\n${logs}`,
      addressInUse,
    );
  }
}
