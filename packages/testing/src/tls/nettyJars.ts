/**
 * Debian's zookeeper.jar names in its manifest only the Netty jars its plaintext server needs; the
 * TLS listener (Netty's SslHandler and bootstrap) also needs these, which the same package's
 * dependencies (libnetty-java) install in /usr/share/java. A binary release (ZOOKEEPER_HOME) ships
 * them in lib/. `scripts/ensure-zookeeper.mjs` checks the same list before the tests run.
 */
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { ZooKeeperInstall } from '../zookeeperInstall.js';

const DEBIAN_JAVA_DIR = '/usr/share/java';
const TLS_JARS = ['netty-codec.jar', 'netty-resolver.jar', 'netty-transport-native-unix-common.jar'];
/** The Debian package that ships them. */
const TLS_JARS_PACKAGE = 'libnetty-java';

/**
 * `install` with the jars a TLS server needs added to its class path. Throws, naming the missing
 * jars and the install command, rather than start a server whose TLS port would never open.
 */
export function withTlsJars(install: ZooKeeperInstall): ZooKeeperInstall {
  if (install.source !== DEBIAN_JAVA_DIR) return install;
  const jars = TLS_JARS.map((jar) => join(DEBIAN_JAVA_DIR, jar));
  const missing = jars.filter((jar) => !existsSync(jar));
  if (missing.length > 0) {
    throw new Error(`a TLS test server needs ${missing.join(', ')} (Debian's ZooKeeper serves TLS only with them): sudo apt-get install -y ${TLS_JARS_PACKAGE}`);
  }
  return { ...install, classpath: [install.classpath, ...jars].join(delimiter) };
}
