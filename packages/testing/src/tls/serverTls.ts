/**
 * One test server's TLS side, planned before it starts: its secure port, its zoo.cfg lines and
 * the class path a TLS server needs. TestingServer and TestingCluster call this per server.
 */
import { freePort } from '../ports.js';
import type { ZooKeeperInstall } from '../zookeeperInstall.js';
import { withTlsJars } from './nettyJars.js';
import { serverTlsConfig, type ClientAuth } from './serverTlsConfig.js';
import { testCertificates } from './testCertificates.js';

export interface ServerTlsPlan {
  /** The `secureClientPort` (127.0.0.1). */
  securePort: number;
  /** zoo.cfg lines (the caller's own `extraConfig` goes over them). */
  config: Record<string, string>;
  /** The install with the TLS jars on its class path. */
  install: ZooKeeperInstall;
}

/** A plan for a server with `clientAuth`, on `securePort` or a free port. Makes the test certificates on first use. */
export async function planServerTls(install: ZooKeeperInstall, clientAuth: ClientAuth, securePort?: number): Promise<ServerTlsPlan> {
  const certs = testCertificates();
  const port = securePort ?? (await freePort());
  return {
    securePort: port,
    config: serverTlsConfig({ securePort: port, keyStoreFile: certs.serverKeyStoreFile, trustStoreFile: certs.caFile, clientAuth }),
    install: withTlsJars(install),
  };
}
