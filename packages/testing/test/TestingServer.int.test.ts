import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findZooKeeper, fourLetterWord, parseMode, TestingServer, testConnectString, uniqueRoot } from '../src/index.js';
import { RAW_CREATE_MODE } from '../src/rawClient.js';
import { connectRaw, isAlive, rawCreate, rawExists, rawMkdirs, until } from './support.js';

const root = uniqueRoot('testing-server');

describe('TestingServer', () => {
  let server: TestingServer;

  beforeAll(async () => {
    server = await TestingServer.start({ forceSync: false, minSessionTimeoutMs: 400, maxSessionTimeoutMs: 30_000 });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('starts a real standalone server on loopback with the configuration asked for', async () => {
    expect(server.connectString).toBe(`127.0.0.1:${server.port}`);
    expect(isAlive(server.pid)).toBe(true);
    expect(parseMode(await fourLetterWord('127.0.0.1', server.port, 'srvr'))).toBe('standalone');
    expect(await fourLetterWord('127.0.0.1', server.port, 'ruok')).toBe('imok');
    const conf = await fourLetterWord('127.0.0.1', server.port, 'conf');
    expect(conf).toMatch(/minSessionTimeout=400\b/);
    expect(conf).toMatch(/maxSessionTimeout=30000\b/);
    expect(conf).toMatch(/tickTime=200\b/);
    // Bound to loopback only: the kernel's listening socket table shows 127.0.0.1, not 0.0.0.0.
    const portHex = server.port.toString(16).toUpperCase().padStart(4, '0');
    const listening = readFileSync('/proc/net/tcp', 'utf8')
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter((f) => f[1]?.endsWith(`:${portHex}`) && f[3] === '0A');
    expect(listening.map((f) => f[1])).toEqual([`0100007F:${portHex}`]);
    const cfg = readFileSync(join(server.dataDir, 'zoo.cfg'), 'utf8');
    expect(cfg).toContain('admin.enableServer=false');
    expect(cfg).toContain('4lw.commands.whitelist=*');
    expect(cfg).toContain('forceSync=no');
    // Logs go to a file in the data dir, not to the test output.
    await until(() => existsSync(join(server.dataDir, 'zookeeper.log')), 5_000, 'zookeeper.log');
    expect(readFileSync(join(server.dataDir, 'zookeeper.log'), 'utf8')).toMatch(/binding to port|ZooKeeper/);
  });

  it('kill() is a crash; restart() comes back on the same port with the same data', async () => {
    const client = await connectRaw(server.connectString);
    await rawMkdirs(client, root);
    await rawCreate(client, `${root}/kept`, RAW_CREATE_MODE.PERSISTENT);
    client.close();

    const pid = server.pid;
    await server.kill();
    expect(isAlive(pid)).toBe(false);
    expect(server.pid).toBe(-1);
    await expect(fourLetterWord('127.0.0.1', server.port, 'ruok')).rejects.toThrow(/ECONNREFUSED/);

    await server.restart();
    expect(server.pid).not.toBe(pid);
    expect(isAlive(server.pid)).toBe(true);
    const again = await connectRaw(server.connectString);
    expect(await rawExists(again, `${root}/kept`)).toBe(true);
    again.close();
  });

  it('pause() hangs the server with its port open; resume() brings it back', async () => {
    await server.pause();
    try {
      // The kernel still accepts the TCP connection, but nobody answers.
      await expect(fourLetterWord('127.0.0.1', server.port, 'ruok', 500)).rejects.toThrow(/no answer/);
      expect(isAlive(server.pid)).toBe(true);
      expect(readFileSync(`/proc/${server.pid}/stat`, 'utf8').split(' ')[2]).toBe('T');
    } finally {
      await server.resume();
    }
    expect(await fourLetterWord('127.0.0.1', server.port, 'ruok')).toBe('imok');
    expect(readFileSync(`/proc/${server.pid}/stat`, 'utf8').split(' ')[2]).not.toBe('T');
  });

  it('stop() ends the JVM and removes the data dir', async () => {
    const other = await TestingServer.start({ forceSync: false });
    const { pid, dataDir, port } = other;
    await other.stop();
    expect(isAlive(pid)).toBe(false);
    expect(existsSync(dataDir)).toBe(false);
    await expect(fourLetterWord('127.0.0.1', port, 'ruok')).rejects.toThrow(/ECONNREFUSED/);
    await other.stop(); // idempotent
  });

  it('a stop() while paused still ends the JVM', async () => {
    const other = await TestingServer.start({ forceSync: false });
    const pid = other.pid;
    await other.pause();
    await other.stop();
    expect(isAlive(pid)).toBe(false);
  });

  it('rejects bad options with every problem named', async () => {
    await expect(TestingServer.start({ tickTimeMs: -5 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: /tickTimeMs/ });
    await expect(TestingServer.start({ bogus: 1 } as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: /bogus/ });
    await expect(TestingServer.start({ minSessionTimeoutMs: 9000, maxSessionTimeoutMs: 4000 })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });

  it('an explicit port is used', async () => {
    const first = await TestingServer.start({ forceSync: false });
    const port = first.port;
    await first.stop();
    const second = await TestingServer.start({ forceSync: false, port });
    try {
      expect(second.port).toBe(port);
      expect(await fourLetterWord('127.0.0.1', port, 'ruok')).toBe('imok');
    } finally {
      await second.stop();
    }
  });
});

describe('TestingServer with ZOOKEEPER_HOME', () => {
  it('starts from the jars of a ZooKeeper release directory (lib/*.jar)', async () => {
    // Build a release-shaped directory from the jars this machine has (Debian's or another release's).
    const home = mkdtempSync(join(tmpdir(), 'zkr-home-'));
    mkdirSync(join(home, 'lib'));
    for (const jar of findZooKeeper().classpath.split(':')) {
      const name = basename(jar) === 'zookeeper.jar' ? 'zookeeper-3.8.0.jar' : basename(jar);
      symlinkSync(jar, join(home, 'lib', name));
    }
    const previous = process.env['ZOOKEEPER_HOME'];
    process.env['ZOOKEEPER_HOME'] = home;
    let server: TestingServer | undefined;
    try {
      expect(findZooKeeper().source).toBe(`ZOOKEEPER_HOME=${home}`);
      server = await TestingServer.start({ forceSync: false });
      expect(await fourLetterWord('127.0.0.1', server.port, 'ruok')).toBe('imok');
    } finally {
      if (previous === undefined) delete process.env['ZOOKEEPER_HOME'];
      else process.env['ZOOKEEPER_HOME'] = previous;
      await server?.stop();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('says how to install ZooKeeper when ZOOKEEPER_HOME holds none', async () => {
    const home = mkdtempSync(join(tmpdir(), 'zkr-home-empty-'));
    const previous = process.env['ZOOKEEPER_HOME'];
    process.env['ZOOKEEPER_HOME'] = home;
    try {
      await expect(TestingServer.start()).rejects.toMatchObject({ code: 'ZOOKEEPER_NOT_FOUND', message: /sudo apt-get install -y zookeeper/ });
    } finally {
      if (previous === undefined) delete process.env['ZOOKEEPER_HOME'];
      else process.env['ZOOKEEPER_HOME'] = previous;
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('the integration global setup', () => {
  it('hands its server to the test workers through testConnectString()', async () => {
    const connect = testConnectString();
    const [host, port] = connect.split(',')[0]!.split(':');
    expect(await fourLetterWord(host!, Number(port), 'ruok')).toBe('imok');
    if (process.env['ZK_CONNECT'] === undefined) {
      // Started by globalSetup with a 400 ms minimum session timeout and no fsync.
      const conf = await fourLetterWord(host!, Number(port), 'conf');
      expect(conf).toMatch(/minSessionTimeout=400\b/);
    }
  });
});
