import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findZooKeeper, INSTALL_ZOOKEEPER_COMMAND, ZooKeeperNotFoundError } from '../src/zookeeperInstall.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'zkr-install-test-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A directory with a fake `java` so these tests do not depend on the machine's JDK. */
function fakeJavaHome(): string {
  const home = tempDir();
  mkdirSync(join(home, 'bin'));
  writeFileSync(join(home, 'bin', 'java'), '#!/bin/sh\n', { mode: 0o755 });
  return home;
}

describe('findZooKeeper', () => {
  it('uses every jar of ZOOKEEPER_HOME/lib (a binary release)', () => {
    const home = tempDir();
    mkdirSync(join(home, 'lib'));
    for (const jar of ['zookeeper-3.8.4.jar', 'zookeeper-jute-3.8.4.jar', 'logback-classic-1.2.13.jar']) writeFileSync(join(home, 'lib', jar), '');
    writeFileSync(join(home, 'lib', 'README.txt'), '');
    const javaHome = fakeJavaHome();
    const found = findZooKeeper({ ZOOKEEPER_HOME: home, JAVA_HOME: javaHome, PATH: '' });
    expect(found.javaBin).toBe(join(javaHome, 'bin', 'java'));
    expect(found.classpath.split(':').sort()).toEqual(
      ['logback-classic-1.2.13.jar', 'zookeeper-3.8.4.jar', 'zookeeper-jute-3.8.4.jar'].map((j) => join(home, 'lib', j)),
    );
    expect(found.source).toBe(`ZOOKEEPER_HOME=${home}`);
  });

  it('rejects a ZOOKEEPER_HOME without a zookeeper jar, naming the fix', () => {
    const home = tempDir();
    expect(() => findZooKeeper({ ZOOKEEPER_HOME: home, JAVA_HOME: fakeJavaHome(), PATH: '' })).toThrow(ZooKeeperNotFoundError);
    expect(() => findZooKeeper({ ZOOKEEPER_HOME: home, JAVA_HOME: fakeJavaHome(), PATH: '' })).toThrow(INSTALL_ZOOKEEPER_COMMAND);
  });

  it('names the Java install command when there is no java', () => {
    let error: unknown;
    try {
      findZooKeeper({ PATH: tempDir() });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ZooKeeperNotFoundError);
    expect((error as ZooKeeperNotFoundError).code).toBe('ZOOKEEPER_NOT_FOUND');
    expect((error as Error).message).toMatch(/apt-get install -y default-jre-headless/);
  });

  it('finds java on PATH', () => {
    const javaHome = fakeJavaHome();
    const home = tempDir();
    writeFileSync(join(home, 'zookeeper-3.8.0.jar'), '');
    expect(findZooKeeper({ ZOOKEEPER_HOME: home, PATH: `/nonexistent:${join(javaHome, 'bin')}` }).javaBin).toBe(join(javaHome, 'bin', 'java'));
  });
});
