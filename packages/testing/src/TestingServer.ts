/**
 * A real standalone ZooKeeper server (a JVM) on a free loopback port with a temporary data dir,
 * for tests: ours and our users'.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTestingServerOptions, type ResolvedServerOptions, type TestingServerOptions } from './options.js';
import { freePorts } from './ports.js';
import { removeOnExit } from './processGuard.js';
import { saslServerProperties } from './sasl.js';
import { writeServerConfig } from './serverConfig.js';
import { planServerTls } from './tls/serverTls.js';
import { testingTls, type TestingTls } from './tls/testingTls.js';
import { waitSecurePort } from './tls/waitSecurePort.js';
import { ServerStartError, ZooKeeperProcess } from './ZooKeeperProcess.js';
import { findZooKeeper } from './zookeeperInstall.js';

/** Attempts when the chosen free port is taken by someone else before the JVM binds it. */
const PORT_ATTEMPTS = 3;

/**
 * A running ZooKeeper server.
 *
 * ```ts
 * const server = await TestingServer.start({ forceSync: false });
 * try { ...connect to server.connectString... } finally { await server.stop(); }
 * ```
 */
export class TestingServer {
  private removed = false;
  private readonly forgetDir: () => void;

  private constructor(
    private readonly process: ZooKeeperProcess,
    private readonly options: ResolvedServerOptions,
    /** Temporary directory holding the snapshots, transaction logs, zoo.cfg and zookeeper.log. */
    readonly dataDir: string,
    /** The client port (on 127.0.0.1). */
    readonly port: number,
    /**
     * With `tls`: the TLS client port (`secureClientPort`, 127.0.0.1) and the certificates to
     * connect with; the plaintext {@link port} stays open. `undefined` without `tls`.
     */
    readonly tls: TestingTls | undefined,
  ) {
    this.forgetDir = removeOnExit(dataDir);
  }

  /**
   * Starts a server and resolves once it serves requests (`srvr` reports `Mode: standalone`).
   * @throws ZooKeeperNotFoundError (naming the install command) when ZooKeeper or Java is missing.
   */
  static async start(options?: TestingServerOptions): Promise<TestingServer> {
    const opts = parseTestingServerOptions(options, 'TestingServer.start');
    const install = findZooKeeper();
    for (let attempt = 1; ; attempt++) {
      // With TLS, a second free port: the secureClientPort.
      const [free, spare] = await freePorts(opts.tls === false ? 1 : 2);
      const port = opts.port ?? free!;
      const dir = mkdtempSync(join(tmpdir(), 'zkr-server-'));
      const secure = opts.tls === false ? undefined : planServerTls(install, opts.tls.clientAuth, dir, port === free ? spare! : free!);
      const configFile = writeServerConfig({
        dir,
        dataDir: dir,
        clientPort: port,
        tickTimeMs: opts.tickTimeMs,
        minSessionTimeoutMs: opts.minSessionTimeoutMs,
        maxSessionTimeoutMs: opts.maxSessionTimeoutMs,
        forceSync: opts.forceSync,
        extraConfig: { ...secure?.config, ...opts.extraConfig },
      });
      const proc = new ZooKeeperProcess({
        install: secure?.install ?? install,
        dir,
        configFile,
        clientPort: port,
        systemProperties: { ...(opts.sasl === undefined ? {} : saslServerProperties(dir, opts.sasl)), ...opts.systemProperties },
        removeDirOnOrphan: true,
        servingModes: ['standalone'],
      });
      try {
        proc.spawn();
        await proc.waitServing(opts.startTimeoutMs);
        if (secure !== undefined) await waitSecurePort(secure.securePort, opts.startTimeoutMs);
        const tls = secure === undefined || opts.tls === false ? undefined : testingTls([secure.securePort], opts.tls.clientAuth);
        return new TestingServer(proc, opts, dir, port, tls);
      } catch (err) {
        await proc.kill();
        rmSync(dir, { recursive: true, force: true });
        const retry = err instanceof ServerStartError && err.addressInUse && opts.port === undefined && attempt < PORT_ATTEMPTS;
        if (!retry) throw err;
      }
    }
  }

  /** `127.0.0.1:<port>`. */
  get connectString(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** PID of the server JVM (-1 after kill/stop). */
  get pid(): number {
    return this.process.pid;
  }

  /** Stops the server (SIGTERM, then SIGKILL) and deletes its data dir. Idempotent. */
  async stop(): Promise<void> {
    await this.process.stop();
    if (!this.removed) {
      this.removed = true;
      rmSync(this.dataDir, { recursive: true, force: true });
      this.forgetDir();
    }
  }

  /** SIGKILL: the server dies at once, as in a crash. The data dir stays for {@link restart}. */
  async kill(): Promise<void> {
    await this.process.kill();
  }

  /** Stops the server if it runs, then starts it again on the same port and data dir. */
  async restart(): Promise<void> {
    if (this.removed) throw new Error('TestingServer.restart: the server was stopped and its data dir removed');
    await this.process.stop();
    this.process.spawn();
    await this.process.waitServing(this.options.startTimeoutMs);
    if (this.tls !== undefined) await waitSecurePort(this.tls.ports[0]!, this.options.startTimeoutMs);
  }

  /** SIGSTOP: the server hangs with its connections open. */
  pause(): Promise<void> {
    return this.process.pause();
  }

  /** SIGCONT after {@link pause}. */
  resume(): Promise<void> {
    return this.process.resume();
  }

  /** `await using server = await TestingServer.start()`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }
}
