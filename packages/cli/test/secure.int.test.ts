/**
 * The CLI's connection options reach a server the way `ZkSession.connect()` does: TLS with a
 * client certificate from PEM files, SASL DIGEST-MD5 with the password from the environment,
 * and refused credentials reported with the library's code (exit 1).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZkSession } from '@zk-recipes/core';
import { InterProcessMutex } from '@zk-recipes/mutex';
import { TestingServer } from '@zk-recipes/testing';
import type { LockListing } from '../src/index.js';
import { runCli } from './support/processes.js';

let server: TestingServer;
let pemDir: string;
const pem = (name: string) => join(pemDir, `${name}.pem`);

beforeAll(async () => {
  server = await TestingServer.start({ forceSync: false, tls: true, sasl: { users: { alice: 'alice-secret' }, requireClientAuth: true } });
  pemDir = mkdtempSync(join(tmpdir(), 'zkr-cli-pem-'));
  const tls = server.tls!;
  writeFileSync(pem('ca'), tls.ca);
  writeFileSync(pem('alice-cert'), tls.clients.alice.cert);
  writeFileSync(pem('alice-key'), tls.clients.alice.key);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  if (pemDir !== undefined) rmSync(pemDir, { recursive: true, force: true });
});

describe('connection options against a TLS and SASL server', () => {
  it('--tls-ca/--tls-cert/--tls-key and --sasl-user with ZK_RECIPES_SASL_PASSWORD: ls sees a lock', async () => {
    const tls = server.tls!;
    const session = await ZkSession.connect({
      connectString: tls.connectString,
      tls: { ca: tls.ca, ...tls.clients.alice },
      sasl: { mechanism: 'DIGEST-MD5', username: 'alice', password: 'alice-secret' },
    });
    try {
      const held = await new InterProcessMutex(session, '/secure/lock').acquire();
      const args = ['ls', '/secure', '--json', '--connect', tls.connectString, '--tls-ca', pem('ca'), '--tls-cert', pem('alice-cert'), '--tls-key', pem('alice-key'), '--sasl-user', 'alice'];
      const run = await runCli(args, { ZK_RECIPES_SASL_PASSWORD: 'alice-secret' });
      expect(run.exitCode, run.stderr).toBe(0);
      expect((JSON.parse(run.stdout) as LockListing).locks.map((l) => [l.path, l.holders])).toEqual([['/secure/lock', 1]]);

      const refused = await runCli([...args.slice(0, -2), '--sasl-user', 'alice', '--sasl-password', 'wrong']);
      expect(refused).toMatchObject({ exitCode: 1, stdout: '' });
      expect(refused.stderr).toMatch(/^zk-recipes: AUTH_FAILED: /);
      expect(refused.stderr).not.toContain('wrong');
      await held.release();
    } finally {
      await session.close();
    }
  });
});
