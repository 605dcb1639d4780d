/**
 * The demo (`npm run demo`, examples/demo.ts) end to end against a real server: every act is
 * played by separate OS processes, the demo's own checks pass (it exits 1 when one fails: a second
 * holder, a fourth lease of three, two leaders at once), and no process outlives it.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { describeCommandResult, runCommand } from '../src/runCommand.js';
import { testConnectString } from '../src/testConnectString.js';
import { isAlive } from './support.js';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const demo = (...acts: string[]) => ['--conditions=@zk-recipes/source', '--import', 'tsx', 'examples/demo.ts', ...acts];

/** The processes the demo says it started: `mutex-1 = pid 1234`. */
function workersIn(stdout: string): { name: string; pid: number }[] {
  return [...stdout.matchAll(/([\w-]+) = pid (\d+)/g)].map((m) => ({ name: m[1]!, pid: Number(m[2]) }));
}

/** The verdict lines: `PASSED  mutex: ...`. */
function verdictsIn(stdout: string): string[] {
  return [...stdout.matchAll(/^ {3}(PASSED|FAILED) {2}([^:]+):/gm)].map((m) => `${m[1]} ${m[2]}`);
}

describe('the demo', () => {
  it('plays the five acts with ZK_CONNECT, each by its own OS processes, and every act passes', async () => {
    const result = await runCommand(process.execPath, demo(), { cwd: repoRoot, env: { ...process.env, ZK_CONNECT: testConnectString() }, timeoutMs: 240_000 });
    const output = describeCommandResult(result);
    expect(result.exitCode, output).toBe(0);
    expect(result.stdout, output).toContain(`Using the ZooKeeper ensemble in ZK_CONNECT: ${testConnectString()}`);
    expect(verdictsIn(result.stdout), output).toEqual([
      'PASSED mutex',
      'PASSED read/write lock',
      'PASSED semaphore',
      'PASSED multi-lock',
      'PASSED leader election',
    ]);
    expect(result.stdout, output).toMatch(/^All 5 acts passed, checked from what the processes reported\. [\d.]+ s; no process left running\.$/m);
    const workers = workersIn(result.stdout);
    expect(workers.map((w) => w.name), output).toEqual([
      ...['mutex-1', 'mutex-2', 'mutex-3', 'mutex-4'],
      ...['writer-A', 'reader-1', 'reader-2', 'writer-B', 'reader-3'],
      ...['lease-1', 'lease-2', 'lease-3', 'lease-4', 'lease-5', 'lease-6'],
      ...['transfer-1', 'transfer-2', 'transfer-3', 'transfer-4'],
      ...['leader-1', 'leader-2', 'leader-3', 'leader-4'],
    ]);
    expect(new Set(workers.map((w) => w.pid)).size, 'one OS process per participant').toBe(workers.length);
    expect(workers.filter((w) => isAlive(w.pid)), 'processes still running after the demo').toEqual([]);
    // The leader act's kill and its explanation.
    expect(result.stdout, output).toMatch(/the demo kills leader-\d \(pid \d+\) with SIGKILL/);
    expect(result.stdout, output).toMatch(/leader-\d took over [\d.]+ m?s after the kill\. Why so long/);
  }, 300_000);

  it('without ZK_CONNECT starts a local ZooKeeper, says so first, and stops it by PID at the end', async () => {
    const env = { ...process.env };
    delete env.ZK_CONNECT;
    const result = await runCommand(process.execPath, demo('mutex'), { cwd: repoRoot, env, timeoutMs: 120_000 });
    const output = describeCommandResult(result);
    expect(result.exitCode, output).toBe(0);
    const lines = result.stdout.split('\n');
    const starting = lines.findIndex((line) => line.startsWith('No ZK_CONNECT: starting a local ZooKeeper server'));
    const serving = /^ZooKeeper [\d.]+ serving on 127\.0\.0\.1:\d+ \(pid (\d+)\) after [\d.]+ s\.$/m.exec(result.stdout);
    expect(starting, output).toBeGreaterThan(0);
    expect(serving, output).not.toBeNull();
    const serverPid = Number(serving![1]);
    expect(result.stdout, output).toContain(`Local ZooKeeper server (pid ${serverPid}) stopped`);
    expect(isAlive(serverPid), `ZooKeeper (pid ${serverPid}) still running after the demo`).toBe(false);
    expect(verdictsIn(result.stdout), output).toEqual(['PASSED mutex']);
    expect(result.stdout, output).toMatch(/^The act passed, .* no process left running\.$/m);
    const workers = workersIn(result.stdout);
    expect(workers.map((w) => w.name), output).toEqual(['mutex-1', 'mutex-2', 'mutex-3', 'mutex-4']);
    expect(workers.filter((w) => isAlive(w.pid)), 'processes still running after the demo').toEqual([]);
  }, 180_000);
});
