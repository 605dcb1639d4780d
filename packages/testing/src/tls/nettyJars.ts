/**
 * Debian's zookeeper.jar names in its manifest only the Netty jars its plaintext server needs; the
 * TLS listener (Netty's SslHandler and bootstrap) also needs these, which the same package's
 * dependencies install in /usr/share/java. A binary release (ZOOKEEPER_HOME) ships them in lib/.
 */
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { ZooKeeperInstall } from '../zookeeperInstall.js';

const DEBIAN_JAVA_DIR = '/usr/share/java';
const TLS_JARS = ['netty-codec.jar', 'netty-resolver.jar', 'netty-transport-native-unix-common.jar'];

/** `install` with the jars a TLS server needs added to its class path (those that exist). */
export function withTlsJars(install: ZooKeeperInstall): ZooKeeperInstall {
  if (install.source !== DEBIAN_JAVA_DIR) return install;
  const extra = TLS_JARS.map((jar) => join(DEBIAN_JAVA_DIR, jar)).filter((jar) => existsSync(jar));
  return { ...install, classpath: [install.classpath, ...extra].join(delimiter) };
}
