/**
 * The error for digest credentials (the `auth` option) a server refused: the same class and code
 * as a SASL refusal, so callers branch on one thing. The server's answer does not say which entry
 * it refused: every user is named, never a password.
 */
import { AuthFailedError } from '../errors.js';
import { ZK_AUTH_FAILED } from './errorMapping.js';
import type { DigestAuth } from './options.js';

export function digestAuthFailed(auth: readonly DigestAuth[]): AuthFailedError {
  const users = auth.map((a) => a.credentials.slice(0, a.credentials.indexOf(':')));
  const named = users.map((u) => `'${u}'`).join(', ');
  return new AuthFailedError('digest', users.join(','), `digest authentication as ${named} failed: the server refused the credentials (is the digest scheme disabled on it?)`, {
    zkCode: ZK_AUTH_FAILED,
  });
}
