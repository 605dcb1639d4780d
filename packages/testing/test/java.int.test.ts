import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureCuratorPrograms, spawnCuratorWorker } from '../src/java.js';

// Needs a JDK, not a ZooKeeper server; it lives with the integration tests because unit tests must
// run on a machine without Java.
const savedEnv = { ...process.env };
afterEach(() => {
  for (const key of ['PATH', 'JAVA_HOME', 'ZK_RECIPES_JAVA_LIB']) {
    if (savedEnv[key] === undefined) delete process.env[key];
    else process.env[key] = savedEnv[key];
  }
});

describe('ensureCuratorPrograms', () => {
  // These two run first: a successful compile is remembered for the rest of the file.
  it('says which apt-get command installs a missing JDK', async () => {
    process.env['PATH'] = '/nonexistent';
    delete process.env['JAVA_HOME'];
    await expect(ensureCuratorPrograms()).rejects.toThrow(/javac not found.*apt-get install -y default-jdk-headless/);
  });

  it('says which apt-get command installs missing Curator jars', async () => {
    process.env['ZK_RECIPES_JAVA_LIB'] = '/nonexistent';
    await expect(ensureCuratorPrograms()).rejects.toThrow(
      /curator-client\.jar.*apt-get install -y libcurator-recipes-java libslf4j-java/,
    );
  });

  it('compiles once and then reuses the cached classes', async () => {
    const first = await ensureCuratorPrograms();
    const classesDir = first.classpath.split(':')[0]!;
    expect(classesDir).toContain(join('node_modules', '.cache', 'zk-recipes-java'));
    const marker = join(classesDir, '.complete');
    const compiledAt = statSync(marker).mtimeMs;
    const second = await ensureCuratorPrograms();
    expect(second.classpath).toBe(first.classpath);
    expect(statSync(marker).mtimeMs).toBe(compiledAt);
    expect(statSync(join(classesDir, 'zkrecipes', 'CuratorWorker.class')).isFile()).toBe(true);
  }, 120_000);
});

describe('spawnCuratorWorker', () => {
  it("prints System.nanoTime on Node's process.hrtime.bigint() clock (both CLOCK_MONOTONIC)", async () => {
    await ensureCuratorPrograms();
    const before = process.hrtime.bigint();
    const w = await spawnCuratorWorker(['clock']);
    const lines = await w.finished();
    const after = process.hrtime.bigint();
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(line.type).toBe('clock');
    expect(line.worker).toBe(`java-${w.pid}`);
    const javaNow = BigInt(line['nanoTime'] as string);
    console.log(`[clock] hrtime before ${before}, Java nanoTime ${javaNow}, hrtime after ${after}`);
    expect(javaNow).toBeGreaterThan(before);
    expect(javaNow).toBeLessThan(after);
  }, 60_000);

  it('reports a usage error with the worker\'s stderr', async () => {
    const w = await spawnCuratorWorker(['no-such-mode', '127.0.0.1:1']);
    await expect(w.finished()).rejects.toThrow(/exited with status 2[\s\S]*unknown mode no-such-mode/);
    await expect(w.waitForLine((l) => l.type === 'ready', 5_000)).rejects.toThrow(/exited before/);
  }, 60_000);

  it('stops a worker that is still trying to connect', async () => {
    // Nothing listens on port 1: Curator keeps retrying until its 60 s connection timeout.
    const blocked = await spawnCuratorWorker(['--connection-timeout-ms', '60000', 'mutex', '127.0.0.1:1', '/x', '1', '0']);
    await blocked.stop(2_000);
    expect(blocked.child.exitCode !== null || blocked.child.signalCode !== null).toBe(true);
  }, 60_000);
});
