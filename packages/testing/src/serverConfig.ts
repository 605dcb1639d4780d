/** Writes a server's zoo.cfg and logging configs into its directory. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ServerConfigInput {
  dir: string;
  dataDir: string;
  clientPort: number;
  tickTimeMs: number;
  minSessionTimeoutMs: number | undefined;
  maxSessionTimeoutMs: number;
  forceSync: boolean;
  extraConfig: Record<string, string>;
  /** Quorum peers (`server.N` lines); absent for a standalone server. */
  quorum?: { myId: number; peers: { id: number; peerPort: number; electionPort: number }[] };
}

// Debian's jars log through slf4j -> log4j 1.2 (as /etc/zookeeper/conf does); a ZooKeeper 3.8
// binary release (ZOOKEEPER_HOME) uses logback. Both configs write to zookeeper.log in the dir.
const LOG4J = `log4j.rootLogger=INFO, FILE
log4j.appender.FILE=org.apache.log4j.FileAppender
log4j.appender.FILE.File=\${zookeeper.log.dir}/zookeeper.log
log4j.appender.FILE.layout=org.apache.log4j.PatternLayout
log4j.appender.FILE.layout.ConversionPattern=%d{ISO8601} - %-5p [%t:%C{1}@%L] - %m%n
`;
const LOGBACK = `<configuration>
  <appender name="FILE" class="ch.qos.logback.core.FileAppender">
    <file>\${zookeeper.log.dir}/zookeeper.log</file>
    <encoder><pattern>%d{ISO8601} - %-5p [%t:%C{1}@%L] - %m%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="FILE"/></root>
</configuration>
`;

/** Writes zoo.cfg (plus myid for quorum members) and returns the zoo.cfg path. */
export function writeServerConfig(input: ServerConfigInput): string {
  const cfg: Record<string, string> = {
    tickTime: String(input.tickTimeMs),
    dataDir: input.dataDir,
    clientPort: String(input.clientPort),
    clientPortAddress: '127.0.0.1',
    maxClientCnxns: '0',
    maxSessionTimeout: String(input.maxSessionTimeoutMs),
    forceSync: input.forceSync ? 'yes' : 'no',
    'admin.enableServer': 'false',
    '4lw.commands.whitelist': '*',
    initLimit: '30',
    syncLimit: '10',
  };
  if (input.minSessionTimeoutMs !== undefined) cfg['minSessionTimeout'] = String(input.minSessionTimeoutMs);
  if (input.quorum !== undefined) {
    cfg['standaloneEnabled'] = 'false';
    cfg['quorumListenOnAllIPs'] = 'false';
    for (const p of input.quorum.peers) cfg[`server.${p.id}`] = `127.0.0.1:${p.peerPort}:${p.electionPort}`;
    writeFileSync(join(input.dataDir, 'myid'), `${input.quorum.myId}\n`);
  }
  Object.assign(cfg, input.extraConfig);
  const file = join(input.dir, 'zoo.cfg');
  writeFileSync(file, Object.entries(cfg).map(([k, v]) => `${k}=${v}`).join('\n') + '\n');
  writeFileSync(join(input.dir, 'log4j.properties'), LOG4J);
  writeFileSync(join(input.dir, 'logback.xml'), LOGBACK);
  return file;
}
