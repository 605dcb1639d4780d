import { readFileSync } from 'node:fs';
import type { ZkSessionOptionsInput } from '@zk-recipes/core';
import { UsageError } from './UsageError.js';

/** Environment variable with the default of `--connect`. */
export const CONNECT_ENV = 'ZK_CONNECT';
/** Environment variable with the SASL password (kept off the command line, where `ps` shows it). */
export const SASL_PASSWORD_ENV = 'ZK_RECIPES_SASL_PASSWORD';

/** The options every command takes: how to reach ZooKeeper, as `ZkSession.connect()` takes them. */
export const CONNECTION_OPTIONS = {
  connect: { type: 'string', short: 'c' },
  chroot: { type: 'string' },
  'session-timeout': { type: 'string' },
  'connection-timeout': { type: 'string' },
  tls: { type: 'boolean' },
  'tls-ca': { type: 'string' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  'sasl-user': { type: 'string' },
  'sasl-password': { type: 'string' },
  digest: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The connection options' help, shared by every command's `--help`. */
export const CONNECTION_HELP = `Connection options (as ZkSession.connect() takes them):
  -c, --connect <host:port,...[/chroot]>  the ensemble (default: $${CONNECT_ENV})
  --chroot <path>                         a chroot, when the connect string carries none
  --session-timeout <ms>                  requested session timeout (default 15000)
  --connection-timeout <ms>               how long to try to connect (default 15000)
  --tls                                   connect over TLS (implied by the --tls-* options)
  --tls-ca <file>                         PEM of the CA that signed the servers' certificates
  --tls-cert <file>, --tls-key <file>     a client certificate and its key (PEM)
  --sasl-user <user>                      SASL DIGEST-MD5 user; the password from --sasl-password
                                          or $${SASL_PASSWORD_ENV}
  --digest <user:password>                digest credentials (repeatable)
  -h, --help                              this help`;

/** The connection options as parseArgs gives them. */
export interface ConnectionValues {
  connect?: string | undefined;
  chroot?: string | undefined;
  'session-timeout'?: string | undefined;
  'connection-timeout'?: string | undefined;
  tls?: boolean | undefined;
  'tls-ca'?: string | undefined;
  'tls-cert'?: string | undefined;
  'tls-key'?: string | undefined;
  'sasl-user'?: string | undefined;
  'sasl-password'?: string | undefined;
  digest?: string[] | undefined;
  help?: boolean | undefined;
}

/**
 * The `ZkSession.connect()` options the command line and environment ask for. The library
 * validates them again (a malformed connect string is its `INVALID_ARGUMENT`).
 * @throws UsageError for what only the command line can get wrong (a missing --connect, a
 *   number that is not one, a password without a user, a file that cannot be read).
 */
export function connectionOptionsOf(values: ConnectionValues, env: NodeJS.ProcessEnv, command: string): ZkSessionOptionsInput {
  let connectString = values.connect ?? env[CONNECT_ENV];
  if (connectString === undefined || connectString.trim() === '') {
    throw new UsageError(`no ZooKeeper to talk to: give --connect host:port[,host:port...] or set ${CONNECT_ENV}`, command);
  }
  if (values.chroot !== undefined) {
    if (connectString.includes('/')) throw new UsageError(`--chroot ${values.chroot}: the connect string carries a chroot already`, command);
    if (!values.chroot.startsWith('/')) throw new UsageError(`--chroot must be an absolute path, got ${JSON.stringify(values.chroot)}`, command);
    connectString += values.chroot;
  }
  const options: ZkSessionOptionsInput = { connectString };
  if (values['session-timeout'] !== undefined) options.sessionTimeoutMs = positiveInteger('--session-timeout', values['session-timeout'], command);
  if (values['connection-timeout'] !== undefined) options.connectionTimeoutMs = positiveInteger('--connection-timeout', values['connection-timeout'], command);

  const pem = (flag: string, file: string | undefined) => (file === undefined ? undefined : readPem(flag, file, command));
  const ca = pem('--tls-ca', values['tls-ca']);
  const cert = pem('--tls-cert', values['tls-cert']);
  const key = pem('--tls-key', values['tls-key']);
  if ((cert === undefined) !== (key === undefined)) throw new UsageError('--tls-cert and --tls-key go together: a client certificate needs its key', command);
  if (values.tls === true || ca !== undefined || cert !== undefined) {
    options.tls = { ...(ca === undefined ? {} : { ca }), ...(cert === undefined ? {} : { cert, key }) };
  }

  const password = values['sasl-password'] ?? env[SASL_PASSWORD_ENV];
  if (values['sasl-user'] !== undefined) {
    if (password === undefined) throw new UsageError(`--sasl-user needs a password: --sasl-password or ${SASL_PASSWORD_ENV}`, command);
    options.sasl = { mechanism: 'DIGEST-MD5', username: values['sasl-user'], password };
  } else if (values['sasl-password'] !== undefined) {
    throw new UsageError('--sasl-password without --sasl-user', command);
  }

  if (values.digest !== undefined) {
    options.auth = values.digest.map((credentials) => {
      if (!/^[^:]+:/.test(credentials)) throw new UsageError('--digest takes user:password', command);
      return { scheme: 'digest' as const, credentials };
    });
  }
  return options;
}

/** A positive integer option value, e.g. a timeout in ms. */
export function positiveInteger(flag: string, text: string, command: string): number {
  if (!/^[1-9]\d*$/.test(text) || !Number.isSafeInteger(Number(text))) throw new UsageError(`${flag} takes a positive integer, got ${JSON.stringify(text)}`, command);
  return Number(text);
}

function readPem(flag: string, file: string, command: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${flag} ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, command);
  }
}
