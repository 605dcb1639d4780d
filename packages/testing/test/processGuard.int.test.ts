import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isAlive, until } from './support.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/startServerThen.ts', import.meta.url));

/** Runs the fixture and resolves with the server PID it reports, plus the fixture process. */
async function startFixture(
  mode: 'hang' | 'exit' | 'kill-then-exit',
  ownGroup = false,
): Promise<{ serverPid: number; dataDir: string; child: ReturnType<typeof spawn> }> {
  const child = spawn(process.execPath, ['--conditions=@zk-recipes/source', '--import', 'tsx', FIXTURE, mode], {
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: ownGroup,
  });
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`fixture exited (${code}) before reporting`)));
  });
  const report = JSON.parse(first) as { pid: number; dataDir: string };
  return { serverPid: report.pid, dataDir: report.dataDir, child };
}

describe('servers never outlive the process that started them', () => {
  it('when that process is SIGKILLed', async () => {
    const { serverPid, dataDir, child } = await startFixture('hang');
    expect(isAlive(serverPid)).toBe(true);
    child.kill('SIGKILL');
    await until(() => !isAlive(serverPid), 10_000, `JVM ${serverPid} to die`);
    await until(() => !existsSync(dataDir), 10_000, `${dataDir} to be removed`);
  });

  it('when that process exits without stopping them', async () => {
    const { serverPid, dataDir, child } = await startFixture('exit');
    await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
    await until(() => !isAlive(serverPid), 10_000, `JVM ${serverPid} to die`);
    await until(() => !existsSync(dataDir), 10_000, `${dataDir} to be removed`);
  });

  it('when its whole process group gets SIGTERM (Ctrl-C, a job runner stopping it)', async () => {
    const { serverPid, dataDir, child } = await startFixture('hang', true);
    process.kill(-child.pid!, 'SIGTERM');
    await until(() => !isAlive(serverPid), 10_000, `JVM ${serverPid} to die`);
    await until(() => !existsSync(dataDir), 10_000, `${dataDir} to be removed`);
  });

  it('leaves no data dir behind for a server that was killed and never stopped', async () => {
    const { serverPid, dataDir, child } = await startFixture('kill-then-exit');
    await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
    expect(isAlive(serverPid)).toBe(false);
    expect(existsSync(dataDir)).toBe(false);
  });
});
