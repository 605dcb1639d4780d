import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectionOptionsOf } from '../src/options/connectionOptions.js';
import { UsageError } from '../src/options/UsageError.js';

const usage = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error('expected a UsageError');
};

describe('connectionOptionsOf', () => {
  it('--connect, else ZK_CONNECT; --chroot appended when the connect string has none; timeouts as numbers', () => {
    expect(connectionOptionsOf({ connect: 'a:1,b:2' }, {}, 'ls')).toEqual({ connectString: 'a:1,b:2' });
    expect(connectionOptionsOf({}, { ZK_CONNECT: 'z:1' }, 'ls')).toEqual({ connectString: 'z:1' });
    expect(connectionOptionsOf({ connect: 'a:1', chroot: '/app' }, {}, 'ls').connectString).toBe('a:1/app');
    expect(connectionOptionsOf({ connect: 'a:1', 'session-timeout': '4000', 'connection-timeout': '2500' }, {}, 'ls')).toMatchObject({ sessionTimeoutMs: 4000, connectionTimeoutMs: 2500 });
    expect(usage(() => connectionOptionsOf({ connect: 'a:1/app', chroot: '/other' }, {}, 'ls'))).toMatch(/carries a chroot already/);
    expect(usage(() => connectionOptionsOf({ connect: 'a:1', 'session-timeout': '0' }, {}, 'ls'))).toMatch(/positive integer/);
  });

  it('TLS from PEM files: --tls alone, --tls-ca, --tls-cert with --tls-key (not one without the other)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'zkr-cli-tls-'));
    for (const name of ['ca', 'cert', 'key']) writeFileSync(join(dir, `${name}.pem`), `${name} pem`);
    const pem = (name: string) => join(dir, `${name}.pem`);
    expect(connectionOptionsOf({ connect: 'a:1', tls: true }, {}, 'ls').tls).toEqual({});
    expect(connectionOptionsOf({ connect: 'a:1', 'tls-ca': pem('ca') }, {}, 'ls').tls).toEqual({ ca: 'ca pem' });
    expect(connectionOptionsOf({ connect: 'a:1', 'tls-ca': pem('ca'), 'tls-cert': pem('cert'), 'tls-key': pem('key') }, {}, 'ls').tls).toEqual({ ca: 'ca pem', cert: 'cert pem', key: 'key pem' });
    expect(usage(() => connectionOptionsOf({ connect: 'a:1', 'tls-cert': pem('cert') }, {}, 'ls'))).toMatch(/go together/);
    expect(usage(() => connectionOptionsOf({ connect: 'a:1', 'tls-ca': join(dir, 'missing.pem') }, {}, 'ls'))).toMatch(/--tls-ca .*missing\.pem: ENOENT/);
  });

  it('SASL: the password from --sasl-password or ZK_RECIPES_SASL_PASSWORD; digest credentials, repeatable', () => {
    expect(connectionOptionsOf({ connect: 'a:1', 'sasl-user': 'alice', 'sasl-password': 'pw' }, {}, 'ls').sasl).toEqual({ mechanism: 'DIGEST-MD5', username: 'alice', password: 'pw' });
    expect(connectionOptionsOf({ connect: 'a:1', 'sasl-user': 'alice' }, { ZK_RECIPES_SASL_PASSWORD: 'env-pw' }, 'ls').sasl).toMatchObject({ password: 'env-pw' });
    expect(usage(() => connectionOptionsOf({ connect: 'a:1', 'sasl-user': 'alice' }, {}, 'ls'))).toMatch(/needs a password/);
    expect(usage(() => connectionOptionsOf({ connect: 'a:1', 'sasl-password': 'pw' }, {}, 'ls'))).toMatch(/without --sasl-user/);
    expect(connectionOptionsOf({ connect: 'a:1', digest: ['u1:p1', 'u2:p:2'] }, {}, 'ls').auth).toEqual([
      { scheme: 'digest', credentials: 'u1:p1' },
      { scheme: 'digest', credentials: 'u2:p:2' },
    ]);
    expect(usage(() => connectionOptionsOf({ connect: 'a:1', digest: ['nocolon'] }, {}, 'ls'))).toMatch(/user:password/);
  });
});
