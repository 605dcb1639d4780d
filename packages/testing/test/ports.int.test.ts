/**
 * The servers' ports: chosen where outgoing connections do not take them, and a start-up whose
 * port was taken anyway is told as such, so the cluster retries on new ports instead of failing a
 * suite (two `npm test` runs side by side start ensembles at once).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePorts } from '../src/ports.js';
import { writeServerConfig } from '../src/serverConfig.js';
import { ServerStartError, ZooKeeperProcess } from '../src/ZooKeeperProcess.js';
import { findZooKeeper } from '../src/zookeeperInstall.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describe('server ports', () => {
  it('lie below the range the OS takes outgoing connections from, and are distinct', async () => {
    const [ephemeralLow] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    const ports = await freePorts(30);
    expect(new Set(ports).size).toBe(30);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(ephemeralLow!);
    }
  });

  it('a quorum peer whose election port is taken fails its start-up as addressInUse (the cluster retries on new ports)', async () => {
    const [clientPort, peerPort, electionPort, otherPeer, otherElection] = await freePorts(5);
    const squatter = await listen(electionPort!);
    const dir = mkdtempSync(join(tmpdir(), 'zkr-ports-'));
    dirs.push(dir);
    const configFile = writeServerConfig({
      dir,
      dataDir: dir,
      clientPort: clientPort!,
      tickTimeMs: 200,
      minSessionTimeoutMs: undefined,
      maxSessionTimeoutMs: 20_000,
      forceSync: false,
      extraConfig: {},
      quorum: {
        myId: 1,
        peers: [
          { id: 1, peerPort: peerPort!, electionPort: electionPort! },
          { id: 2, peerPort: otherPeer!, electionPort: otherElection! },
        ],
      },
    });
    const proc = new ZooKeeperProcess({
      install: findZooKeeper(),
      dir,
      configFile,
      clientPort: clientPort!,
      systemProperties: {},
      removeDirOnOrphan: true,
      servingModes: ['leader', 'follower'],
    });
    try {
      proc.spawn();
      const failure = await proc.waitServing(60_000).then(
        () => new Error('the peer served with its election port taken'),
        (err: unknown) => err,
      );
      expect(failure).toBeInstanceOf(ServerStartError);
      expect((failure as ServerStartError).message).toContain('exited during start-up');
      expect((failure as ServerStartError).addressInUse).toBe(true);
    } finally {
      await proc.kill();
      squatter.close();
    }
  }, 90_000);
});
