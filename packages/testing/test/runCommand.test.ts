import { describe, expect, it } from 'vitest';
import { CommandFailedError, runCommand, runCommandOrFail } from '../src/runCommand.js';

const node = process.execPath;
const cwd = process.cwd();

describe('runCommand', () => {
  it('keeps the exit code and everything the command printed', async () => {
    const result = await runCommand(node, ['-e', "console.log('out'); console.error('err'); process.exit(3)"], { cwd, timeoutMs: 30_000 });
    expect(result).toMatchObject({ exitCode: 3, signal: null, timedOut: false, stdout: 'out\n', stderr: 'err\n', cwd });
  });

  it('kills a command that does not end within its bound, and says so', async () => {
    const result = await runCommand(node, ['-e', "console.log('started'); setInterval(() => {}, 1000)"], { cwd, timeoutMs: 3_000 });
    expect(result).toMatchObject({ timedOut: true, exitCode: null, signal: 'SIGKILL', stdout: 'started\n' });
    // 3 s: a busy 2-core machine can take over a second to start node and print.
  }, 20_000);

  it('reports a command that cannot be started instead of throwing', async () => {
    const result = await runCommand('/nonexistent/zkr-command', [], { cwd, timeoutMs: 30_000 });
    expect(result.exitCode).toBeNull();
    expect(result.stderr).toMatch(/could not run: .*ENOENT/);
  });
});

describe('runCommandOrFail', () => {
  it('resolves when the command exited with 0', async () => {
    await expect(runCommandOrFail(node, ['-e', "console.log('fine')"], { cwd, timeoutMs: 30_000 })).resolves.toMatchObject({ stdout: 'fine\n' });
  });

  it('fails with the command line, how it ended and its whole output', async () => {
    const failure = await runCommandOrFail(node, ['-e', "console.log('partial'); console.error('broken thing'); process.exit(2)"], { cwd, timeoutMs: 30_000 }).catch(
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(CommandFailedError);
    const message = (failure as Error).message;
    expect(message).toContain(`${node} -e 'console.log(`);
    expect(message).toContain('exited with code 2');
    expect(message).toContain('--- stdout ---\npartial');
    expect(message).toContain('--- stderr ---\nbroken thing');
  });
});
