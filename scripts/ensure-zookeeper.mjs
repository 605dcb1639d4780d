#!/usr/bin/env node
// Makes sure the integration tests, the demo and the benchmarks have a ZooKeeper to run against
// (and, with --with-curator, the JDK and Apache Curator jars the interop tests and benchmarks
// compile against). Run first by `npm test`, `npm run demo` and `npm run bench`. Plain Node, no
// dependencies.
//
//   ZK_CONNECT set                        -> use that ensemble, nothing to do
//   ZooKeeper jars + java found           -> @zk-recipes/testing starts servers itself, nothing to do
//   missing, root and apt-get available   -> apt-get install -y zookeeper (non-interactive), go on
//   missing otherwise                     -> exit 1 with the exact command to run
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const INSTALL = 'sudo apt-get install -y zookeeper';
const tag = '[ensure-zookeeper]';

function hasZooKeeperJars() {
  const home = process.env.ZOOKEEPER_HOME;
  if (home) {
    return [home, join(home, 'lib')].some(
      (dir) => existsSync(dir) && readdirSync(dir).some((f) => /^zookeeper-\d.*\.jar$|^zookeeper\.jar$/.test(f)),
    );
  }
  return existsSync('/usr/share/java/zookeeper.jar');
}

function hasJava() {
  if (process.env.JAVA_HOME && existsSync(join(process.env.JAVA_HOME, 'bin', 'java'))) return true;
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, 'java')));
}

function hasAptGet() {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, 'apt-get')));
}

function run(command, args) {
  console.error(`${tag} $ ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (result.status !== 0) {
    console.error(`${tag} '${command} ${args.join(' ')}' failed (${result.error?.message ?? `exit ${result.status}`})`);
    process.exit(1);
  }
}

function fail(what, command = INSTALL) {
  console.error(
    `${tag} ${what}\n` +
      `${tag} Install it with:\n\n    ${command}\n\n` +
      `${tag} (or set ZOOKEEPER_HOME to an unpacked ZooKeeper 3.8 release, or ZK_CONNECT to a running ensemble,\n` +
      `${tag}  e.g. \`docker compose up -d\` and ZK_CONNECT=127.0.0.1:2181,127.0.0.1:2182,127.0.0.1:2183)`,
  );
  process.exit(1);
}

const CURATOR_PACKAGES = ['default-jdk-headless', 'libcurator-recipes-java', 'libslf4j-java'];
const wantsCurator = process.argv.includes('--with-curator');

function hasCuratorToolchain() {
  const onPath = (tool) => (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, tool)));
  return onPath('javac') && ['curator-recipes.jar', 'curator-framework.jar', 'curator-client.jar', 'slf4j-nop.jar'].every((jar) => existsSync(join('/usr/share/java', jar)));
}

/** The Curator peer is needed by interop tests and benchmarks, not by ZooKeeper itself. */
function ensureCurator() {
  if (!wantsCurator || hasCuratorToolchain()) return;
  const isRootUser = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRootUser || !hasAptGet()) {
    console.error(`${tag} javac or the Apache Curator jars are missing; the Curator interop tests will fail. Install them with:\n\n    sudo apt-get install -y ${CURATOR_PACKAGES.join(' ')}\n`);
    return;
  }
  console.error(`${tag} installing the JDK and Apache Curator jars for the interop tests...`);
  run('apt-get', ['-o', 'DPkg::Lock::Timeout=300', 'update']);
  run('apt-get', ['-o', 'DPkg::Lock::Timeout=300', 'install', '-y', '--no-install-recommends', ...CURATOR_PACKAGES]);
}

// The TLS test servers (@zk-recipes/testing, tls option): openssl makes their throwaway CA and
// certificates; Debian's ZooKeeper serves TLS only with these Netty jars on its class path
// (packages/testing/src/tls/nettyJars.ts). A ZOOKEEPER_HOME release ships its own Netty.
const TLS_JARS = ['netty-codec.jar', 'netty-resolver.jar', 'netty-transport-native-unix-common.jar'];
const onPath = (tool) => (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, tool)));

function missingTlsTools() {
  const missing = [];
  if (!onPath('openssl')) missing.push('openssl');
  if (!process.env.ZOOKEEPER_HOME && hasZooKeeperJars() && TLS_JARS.some((jar) => !existsSync(join('/usr/share/java', jar)))) missing.push('libnetty-java');
  return missing;
}

/** Runs after ZooKeeper is there: the Netty check needs to know which ZooKeeper is used. */
function ensureTlsTools() {
  let missing = missingTlsTools();
  if (missing.length === 0) return;
  const isRootUser = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRootUser || !hasAptGet()) {
    console.error(`${tag} the TLS test servers need ${missing.join(' and ')}. Install with:\n\n    sudo apt-get install -y ${missing.join(' ')}\n`);
    process.exit(1);
  }
  console.error(`${tag} installing ${missing.join(' ')} for the TLS test servers...`);
  run('apt-get', ['-o', 'DPkg::Lock::Timeout=300', 'update']);
  run('apt-get', ['-o', 'DPkg::Lock::Timeout=300', 'install', '-y', '--no-install-recommends', ...missing]);
  missing = missingTlsTools();
  if (missing.length > 0) fail(`The install finished but ${missing.join(' and ')} is still missing.`, `sudo apt-get install -y ${missing.join(' ')}`);
}

ensureCurator();
if (process.env.ZK_CONNECT) {
  console.error(`${tag} using ZK_CONNECT=${process.env.ZK_CONNECT}`);
  process.exit(0);
}
if (hasZooKeeperJars() && hasJava()) {
  ensureTlsTools();
  process.exit(0);
}
if (process.env.ZOOKEEPER_HOME && !hasZooKeeperJars()) {
  // Installing the Debian package would not help: ZOOKEEPER_HOME takes precedence.
  fail(`ZOOKEEPER_HOME=${process.env.ZOOKEEPER_HOME} holds no zookeeper-<version>.jar (in it or in lib/); fix or unset it.`);
}

const missing = hasZooKeeperJars() ? 'Java (needed to run ZooKeeper) was not found.' : 'ZooKeeper was not found (no ZOOKEEPER_HOME, no /usr/share/java/zookeeper.jar).';
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
if (!isRoot || !hasAptGet()) fail(missing, hasZooKeeperJars() ? 'sudo apt-get install -y default-jre-headless' : INSTALL);

console.error(`${tag} ${missing} Installing the Debian package as root...`);
const lockWait = ['-o', 'DPkg::Lock::Timeout=300'];
run('apt-get', [...lockWait, 'update']);
// The zookeeper package depends on a JRE, so this brings Java too.
run('apt-get', [...lockWait, 'install', '-y', '--no-install-recommends', 'zookeeper']);
if (!hasJava()) run('apt-get', [...lockWait, 'install', '-y', '--no-install-recommends', 'default-jre-headless']);
if (!hasZooKeeperJars() || !hasJava()) fail('The install finished but ZooKeeper or Java is still missing.');
console.error(`${tag} ZooKeeper installed.`);
ensureTlsTools();
