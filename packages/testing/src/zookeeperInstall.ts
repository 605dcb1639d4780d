/**
 * Where the ZooKeeper server jars and the `java` launcher come from: `ZOOKEEPER_HOME` (a binary
 * release: `lib/*.jar`) or the Debian `zookeeper` package (`/usr/share/java`).
 */
import { existsSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The exact command that installs what {@link findZooKeeper} looks for. */
export const INSTALL_ZOOKEEPER_COMMAND = 'sudo apt-get install -y zookeeper';

/** How to launch a ZooKeeper server JVM on this machine. */
export interface ZooKeeperInstall {
  /** The `java` launcher. */
  javaBin: string;
  /** `-cp` value: the server jars plus a logging backend that writes to a file. */
  classpath: string;
  /** Where the jars were found (for error messages). */
  source: string;
}

/** Thrown when no ZooKeeper (or no Java) can be found; the message names the fix. */
export class ZooKeeperNotFoundError extends Error {
  /** The stable code to branch on. */
  readonly code = 'ZOOKEEPER_NOT_FOUND';
  constructor(message: string) {
    super(message);
    this.name = 'ZooKeeperNotFoundError';
  }
}

const DEBIAN_JAVA_DIR = '/usr/share/java';

/**
 * Finds the ZooKeeper server classpath and the Java launcher.
 * @throws {@link ZooKeeperNotFoundError} naming the install command when either is missing.
 */
export function findZooKeeper(env: NodeJS.ProcessEnv = process.env): ZooKeeperInstall {
  const javaBin = findJava(env);
  const home = env['ZOOKEEPER_HOME'];
  if (home !== undefined && home !== '') {
    const jars = [home, join(home, 'lib')]
      .filter((dir) => existsSync(dir))
      .flatMap((dir) => readdirSync(dir).filter((f) => f.endsWith('.jar')).map((f) => join(dir, f)));
    if (!jars.some((j) => /zookeeper-\d[^/]*\.jar$|zookeeper\.jar$/.test(j))) {
      throw new ZooKeeperNotFoundError(
        `ZOOKEEPER_HOME=${home} holds no zookeeper-<version>.jar (in it or in lib/). ` +
          `Point it at an unpacked ZooKeeper binary release (apache-zookeeper-3.8.x-bin), or unset it and run: ${INSTALL_ZOOKEEPER_COMMAND}`,
      );
    }
    return { javaBin, classpath: jars.join(delimiter), source: `ZOOKEEPER_HOME=${home}` };
  }
  const main = join(DEBIAN_JAVA_DIR, 'zookeeper.jar');
  if (!existsSync(main)) {
    throw new ZooKeeperNotFoundError(
      `ZooKeeper is not installed: neither ZOOKEEPER_HOME is set nor ${main} exists. ` +
        `Install it with: ${INSTALL_ZOOKEEPER_COMMAND}   (or set ZOOKEEPER_HOME to an unpacked ZooKeeper 3.8 release, ` +
        `or set ZK_CONNECT to a running ensemble)`,
    );
  }
  // Debian's zookeeper.jar names its dependencies (jute, netty, slf4j-api, metrics, snappy,
  // commons-*, ...) in its manifest Class-Path, so it is enough on its own; the two logging jars
  // bind slf4j to log4j 1.2 (what Debian's /etc/zookeeper/conf uses) so logs go to a file.
  const logging = ['slf4j-log4j12.jar', 'log4j-1.2.jar'].map((j) => join(DEBIAN_JAVA_DIR, j)).filter((j) => existsSync(j));
  return { javaBin, classpath: [main, ...logging].join(delimiter), source: DEBIAN_JAVA_DIR };
}

/** `$JAVA_HOME/bin/java`, else the first `java` on PATH. */
function findJava(env: NodeJS.ProcessEnv): string {
  const javaHome = env['JAVA_HOME'];
  if (javaHome !== undefined && javaHome !== '') {
    const bin = join(javaHome, 'bin', 'java');
    if (existsSync(bin)) return bin;
  }
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue;
    const bin = join(dir, 'java');
    if (existsSync(bin)) return bin;
  }
  throw new ZooKeeperNotFoundError(
    `No Java runtime found (JAVA_HOME unset and no 'java' on PATH). Install it with: ` +
      `sudo apt-get install -y default-jre-headless   (the Debian zookeeper package pulls it in: ${INSTALL_ZOOKEEPER_COMMAND})`,
  );
}
