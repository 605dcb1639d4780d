/**
 * A real ZooKeeper ensemble (N JVMs forming a quorum on loopback), for failover tests: kill,
 * pause or restart single members and watch clients move.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTestingClusterOptions, type TestingClusterOptions } from './options.js';
import { pollUntil } from './observeNodes.js';
import { freePorts } from './ports.js';
import { removeOnExit } from './processGuard.js';
import { saslServerProperties } from './sasl.js';
import { writeServerConfig } from './serverConfig.js';
import { planServerTls } from './tls/serverTls.js';
import { testingTls, type TestingTls } from './tls/testingTls.js';
import { waitSecurePort } from './tls/waitSecurePort.js';
import { ServerStartError, ZooKeeperProcess } from './ZooKeeperProcess.js';
import { findZooKeeper } from './zookeeperInstall.js';

const PORT_ATTEMPTS = 3;
/** A member counts as serving once it has joined the quorum in one of these roles. */
const QUORUM_MODES = ['leader', 'follower'] as const;

/** One server of a {@link TestingCluster}. */
export class ClusterMember {
  private readonly forgetDir: () => void;

  /** @internal */
  constructor(
    private readonly process: ZooKeeperProcess,
    /** The server's `myid` (1-based). */
    readonly id: number,
    /** Its own temporary directory (data, zoo.cfg, zookeeper.log). */
    readonly dataDir: string,
    /** Client port on 127.0.0.1. */
    readonly port: number,
    private readonly startTimeoutMs: number,
    /** Its TLS client port (`secureClientPort`, 127.0.0.1) when the cluster serves TLS. */
    readonly securePort: number | undefined = undefined,
  ) {
    this.forgetDir = removeOnExit(dataDir);
  }

  /** `127.0.0.1:<port>` of this member alone. */
  get connectString(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** PID of its JVM, -1 when not running. */
  get pid(): number {
    return this.process.pid;
  }

  /** `leader`, `follower`, or null when it does not serve (down, paused, electing). */
  mode(): Promise<string | null> {
    return this.process.mode();
  }

  /** SIGKILL (a crash); the data stays for {@link restart}. */
  async kill(): Promise<void> {
    await this.process.kill();
  }

  /** Graceful stop (SIGTERM); the data stays for {@link restart}. */
  async stop(): Promise<void> {
    await this.process.stop();
  }

  /** Stops it if running, starts it on the same ports and data, and waits until it has rejoined the quorum. */
  async restart(): Promise<void> {
    await this.process.stop();
    this.process.spawn();
    await this.process.waitServing(this.startTimeoutMs);
    if (this.securePort !== undefined) await waitSecurePort(this.securePort, this.startTimeoutMs);
  }

  /** SIGSTOP: hung with connections open (followers and clients notice only by timeouts). */
  pause(): Promise<void> {
    return this.process.pause();
  }

  /** SIGCONT after {@link pause}. */
  resume(): Promise<void> {
    return this.process.resume();
  }

  /** @internal */
  removeDir(): void {
    rmSync(this.dataDir, { recursive: true, force: true });
    this.forgetDir();
  }
}

/**
 * A running ensemble.
 *
 * ```ts
 * const cluster = await TestingCluster.start({ size: 3 });
 * await (await cluster.leader()).kill();
 * await cluster.stop();
 * ```
 */
export class TestingCluster {
  private stopped = false;

  private constructor(
    /** The members, in `myid` order. */
    readonly servers: readonly ClusterMember[],
    /**
     * With `tls`: every member's TLS client port (`connectString`) and the certificates to connect
     * with; the plaintext ports stay open. `undefined` without `tls`.
     */
    readonly tls: TestingTls | undefined = undefined,
  ) {}

  /**
   * Starts `size` servers as one quorum and resolves once a leader is elected and every member
   * serves (`srvr` reports leader or follower).
   * @throws ZooKeeperNotFoundError (naming the install command) when ZooKeeper or Java is missing.
   */
  static async start(options?: TestingClusterOptions): Promise<TestingCluster> {
    const opts = parseTestingClusterOptions(options, 'TestingCluster.start');
    const install = findZooKeeper();
    for (let attempt = 1; ; attempt++) {
      const clientAuth = opts.tls === false ? undefined : opts.tls.clientAuth;
      // With TLS, a fourth port per server: its secureClientPort.
      const perServer = clientAuth === undefined ? 3 : 4;
      const ports = await freePorts(opts.size * perServer);
      const peers = Array.from({ length: opts.size }, (_, i) => ({
        id: i + 1,
        clientPort: ports[i * perServer]!,
        peerPort: ports[i * perServer + 1]!,
        electionPort: ports[i * perServer + 2]!,
      }));
      const members = peers.map((peer, i) => {
        const dir = mkdtempSync(join(tmpdir(), `zkr-cluster-${peer.id}-`));
        const secure = clientAuth === undefined ? undefined : planServerTls(install, clientAuth, dir, ports[i * perServer + 3]!);
        const configFile = writeServerConfig({
          dir,
          dataDir: dir,
          clientPort: peer.clientPort,
          tickTimeMs: opts.tickTimeMs,
          minSessionTimeoutMs: opts.minSessionTimeoutMs,
          maxSessionTimeoutMs: opts.maxSessionTimeoutMs,
          forceSync: opts.forceSync,
          extraConfig: { ...secure?.config, ...opts.extraConfig },
          quorum: { myId: peer.id, peers },
        });
        const proc = new ZooKeeperProcess({
          install: secure?.install ?? install,
          dir,
          configFile,
          clientPort: peer.clientPort,
          systemProperties: { ...(opts.sasl === undefined ? {} : saslServerProperties(dir, opts.sasl)), ...opts.systemProperties },
          removeDirOnOrphan: true,
          servingModes: QUORUM_MODES,
        });
        return { proc, securePort: secure?.securePort, member: new ClusterMember(proc, peer.id, dir, peer.clientPort, opts.startTimeoutMs, secure?.securePort) };
      });
      const processes = members.map((m) => m.proc);
      try {
        for (const p of processes) p.spawn();
        await Promise.all(processes.map((p) => p.waitServing(opts.startTimeoutMs)));
        const securePorts = members.flatMap((m) => (m.securePort === undefined ? [] : [m.securePort]));
        await Promise.all(securePorts.map((securePort) => waitSecurePort(securePort, opts.startTimeoutMs)));
        const tls = clientAuth === undefined ? undefined : testingTls(securePorts, clientAuth);
        const cluster = new TestingCluster(members.map((m) => m.member), tls);
        await cluster.leader(opts.startTimeoutMs);
        return cluster;
      } catch (err) {
        await Promise.all(processes.map((p) => p.kill()));
        for (const m of members) m.member.removeDir();
        const retry = err instanceof ServerStartError && err.addressInUse && attempt < PORT_ATTEMPTS;
        if (!retry) throw err;
      }
    }
  }

  /** Every member: `127.0.0.1:p1,127.0.0.1:p2,...`. */
  get connectString(): string {
    return this.servers.map((s) => s.connectString).join(',');
  }

  /** The member whose `srvr` says `Mode: leader`, polling until one does or `timeoutMs` passes. */
  async leader(timeoutMs = 30_000): Promise<ClusterMember> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const modes = await Promise.all(this.servers.map((s) => s.mode()));
      const index = modes.indexOf('leader');
      if (index >= 0) return this.servers[index]!;
      if (Date.now() > deadline) throw new Error(`TestingCluster: no leader after ${timeoutMs} ms (modes: ${modes.join(', ')})`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /**
   * A leader failure, from start to end: kills (SIGKILL) or pauses (SIGSTOP) the leader, waits
   * until another member reports that it leads, then brings the old leader back (restart, or
   * SIGCONT) and waits until it follows. Resolves with the `process.hrtime.bigint()` at which the
   * new leader was first seen (work that starts after it ran under the new leader). The old
   * leader is brought back even when no new one is elected in `timeoutMs`.
   */
  async failLeader(how: 'kill' | 'pause', timeoutMs = 30_000): Promise<bigint> {
    const old = await this.leader(timeoutMs);
    const others = this.servers.filter((member) => member !== old);
    await (how === 'kill' ? old.kill() : old.pause());
    let electedAt: bigint;
    try {
      // No event says "elected": ask the members (a paused one would take 1 s to not answer).
      await pollUntil(async () => (await Promise.all(others.map((m) => m.mode()))).includes('leader'), timeoutMs, 'a new leader');
      electedAt = process.hrtime.bigint();
    } finally {
      await (how === 'kill' ? old.restart() : old.resume());
    }
    await pollUntil(async () => (await old.mode()) === 'follower', timeoutMs, `member ${old.id} to follow again`);
    return electedAt;
  }

  /** Stops every member and removes their data dirs. Idempotent. */
  async stop(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.stop()));
    if (!this.stopped) {
      this.stopped = true;
      for (const s of this.servers) s.removeDir();
    }
  }

  /** `await using cluster = await TestingCluster.start()`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }
}

