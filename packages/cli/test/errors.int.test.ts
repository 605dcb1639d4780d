/**
 * The CLI's errors: a code and a message on stderr, nothing on stdout, and an exit code that
 * tells them apart: 1 when ZooKeeper fails or nothing is there, 2 when the command line is wrong.
 */
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { testConnectString } from '@zk-recipes/testing';
import { runCli } from './support/processes.js';

// Up to six CLI processes one after another per test, each starting node and tsx: minutes on a
// heavily loaded 2-core machine, not the 60 s an integration test gets by default.
describe('CLI errors and exit codes', { timeout: 180_000 }, () => {
  it('a connect string that is not one: INVALID_ARGUMENT, usage error (2)', async () => {
    const run = await runCli(['inspect', '/x', '--connect', 'not a connect string']);
    expect(run).toMatchObject({ exitCode: 2, stdout: '' });
    expect(run.stderr).toMatch(/^zk-recipes: INVALID_ARGUMENT: invalid ZkSession options: connectString: /);
    expect(run.stderr).toContain('Run `zk-recipes inspect --help` for usage.');
  });

  it('a port nothing listens on: CONNECTION_LOSS at once, saying so, failure (1)', async () => {
    const run = await runCli(['ls', '/', '--connect', '127.0.0.1:1', '--connection-timeout', '60000']);
    expect(run).toMatchObject({ exitCode: 1, stdout: '' });
    expect(run.stderr).toBe('zk-recipes: CONNECTION_LOSS: could not connect to 127.0.0.1:1: 127.0.0.1:1 refused the connection (ECONNREFUSED: nothing listens on that port)\n');
  });

  it('a server that accepts and never answers: CONNECTION_LOSS after --connection-timeout, failure (1)', async () => {
    const silent = createServer((socket) => socket.resume().on('error', () => undefined));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = `127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      const run = await runCli(['ls', '/', '--connect', address, '--connection-timeout', '500']);
      expect(run).toMatchObject({ exitCode: 1, stdout: '' });
      expect(run.stderr).toBe(`zk-recipes: CONNECTION_LOSS: could not connect to ${address} within 500 ms: ${address} accepted the connection but never answered the ZooKeeper handshake\n`);
    } finally {
      // The CLI has exited: its connections are closed, and read to their end (resume).
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('ZK_CONNECT stands in for --connect; without either, a usage error (2)', async () => {
    const viaEnv = await runCli(['inspect', '/zkr-test/none-such-lock'], { ZK_CONNECT: testConnectString() });
    expect(viaEnv).toMatchObject({ exitCode: 1, stderr: 'zk-recipes: NO_NODE: no node at /zkr-test/none-such-lock\n' });
    const without = await runCli(['inspect', '/x']);
    expect(without).toMatchObject({ exitCode: 2, stdout: '' });
    expect(without.stderr).toMatch(/^zk-recipes: no ZooKeeper to talk to: give --connect/);
  });

  it('usage errors (2): no command, an unknown command, an unknown option, a missing or relative path, a bad number', async () => {
    const cases: Array<[string[], RegExp]> = [
      [[], /^Usage: zk-recipes <command>/],
      [['lock', '/x'], /^zk-recipes: unknown command "lock": one of inspect, ls, revoke\n/],
      [['inspect', '/x', '--conect', 'a:1'], /^zk-recipes: Unknown option '--conect'/],
      [['inspect', '--connect', 'a:1'], /^zk-recipes: inspect takes one lock path, got none\n/],
      [['revoke', 'relative', '--connect', 'a:1'], /^zk-recipes: INVALID_ARGUMENT: node must be absolute/],
      [['inspect', '/x', '--connect', 'a:1', '--session-timeout', '10s'], /^zk-recipes: --session-timeout takes a positive integer, got "10s"\n/],
    ];
    for (const [args, stderr] of cases) {
      const run = await runCli(args);
      expect(run.exitCode, args.join(' ')).toBe(2);
      expect(run.stdout, args.join(' ')).toBe('');
      expect(run.stderr, args.join(' ')).toMatch(stderr);
    }
  });

  it('--help for the CLI and for each command: on stdout, exit 0', async () => {
    for (const [args, first] of [
      [['--help'], 'Usage: zk-recipes <command> [options]'],
      [['inspect', '--help'], 'Usage: zk-recipes inspect <path> --connect <host:port,...> [--json] [--watch] [--election] [--key <key>]'],
      [['ls', '-h'], 'Usage: zk-recipes ls <root> --connect <host:port,...> [--json]'],
      [['help', 'revoke'], 'Usage: zk-recipes revoke <node> --connect <host:port,...>'],
    ] as const) {
      const run = await runCli(args);
      expect(run).toMatchObject({ exitCode: 0, stderr: '' });
      expect(run.stdout.split('\n')[0]).toBe(first);
    }
  });
});
