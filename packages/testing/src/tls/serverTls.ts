/**
 * One test server's TLS side, set up in its data directory before it starts (so the files go with
 * the directory): its key store and trust store, its zoo.cfg lines and the class path a TLS server
 * needs. TestingServer and TestingCluster call this per server.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

/** Writes the stores of a server with `clientAuth` on `securePort` into `dir` and returns its plan. Makes the test certificates on first use. */
export function planServerTls(install: ZooKeeperInstall, clientAuth: ClientAuth, dir: string, securePort: number): ServerTlsPlan {
  const certs = testCertificates();
  const keyStoreFile = join(dir, 'tls-keystore.pem');
  const trustStoreFile = join(dir, 'tls-truststore.pem');
  // ZooKeeper's PEM key store: the private key and the certificate in one file.
  writeFileSync(keyStoreFile, certs.server.key + certs.server.cert, { mode: 0o600 });
  writeFileSync(trustStoreFile, certs.ca);
  return {
    securePort,
    config: serverTlsConfig({ securePort, keyStoreFile, trustStoreFile, clientAuth }),
    install: withTlsJars(install),
  };
}
