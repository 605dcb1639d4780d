/**
 * Which socket errors of a TLS connection are TLS failures, and what each means for the user: a
 * pure mapping from Node's error to our {@link TlsHandshakeError} (docs/security.md lists them).
 * A failure here repeats on every attempt, so `connect()` reports it instead of retrying.
 */
import { TlsHandshakeError, type TlsFailureReason } from '../errors.js';

/** OpenSSL's verification results for a server certificate we cannot trust (Node's `err.code`). */
const UNTRUSTED = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
]);

/** Alerts a server sends when it refuses our certificate, or requires one we did not send. */
const CLIENT_CERTIFICATE_ALERT = /^ERR_SSL_(SSLV3|TLSV1|TLSV13)_ALERT_(BAD_CERTIFICATE|UNSUPPORTED_CERTIFICATE|CERTIFICATE_REVOKED|CERTIFICATE_EXPIRED|CERTIFICATE_UNKNOWN|UNKNOWN_CA|ACCESS_DENIED|CERTIFICATE_REQUIRED)$/;

/** What OpenSSL says when the bytes that came back are not TLS records. */
const NOT_TLS = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG', 'ERR_SSL_UNKNOWN_PROTOCOL', 'ERR_SSL_RECORD_LAYER_FAILURE']);

/**
 * Node's "socket disconnected before secure TLS connection was established": a plaintext ZooKeeper
 * port does this (it reads our hello as an oversized frame), and so does a TLS server that is not
 * serving yet. Not a failure by itself: `plaintextPortProbe.ts` tells the two apart.
 */
export function handshakeCutShort(err: unknown, secured: boolean): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return !secured && (code === 'ECONNRESET' || code === 'EPIPE');
}

/** The failure {@link handshakeCutShort} stands for once `address` answered a plaintext four-letter word. */
export function plaintextPortFailure(address: string, cause: unknown): TlsHandshakeError {
  return new TlsHandshakeError(
    'not-a-tls-port',
    address,
    `TLS connection to ${address} failed: the server closed the connection during the TLS handshake and answers in plaintext: it is a plaintext clientPort; use its secureClientPort`,
    { cause, tlsCode: (cause as { code?: string } | null)?.code },
  );
}

/**
 * The TLS failure `err` stands for on a connection to `address`, or `undefined` when it is an
 * ordinary network error (refused, unreachable, reset: see {@link handshakeCutShort}): those are
 * the wire client's business, which tries the next server.
 */
export function tlsFailureOf(err: unknown, address: string): TlsHandshakeError | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  const detail = err instanceof Error ? err.message : String(err);
  const make = (reason: TlsFailureReason, why: string): TlsHandshakeError =>
    new TlsHandshakeError(reason, address, `TLS connection to ${address} failed: ${why} (${code}: ${detail})`, { cause: err, tlsCode: code });
  if (UNTRUSTED.has(code)) {
    return make('untrusted-server-certificate', "the server's certificate is not trusted: pass the CA that signed it as tls.ca");
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return make('server-name-mismatch', "the server's certificate does not name this host: connect by a name or address it carries, or set tls.servername");
  }
  if (code === 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED') {
    return make('client-certificate-refused', 'the server requires a client certificate: pass tls.cert and tls.key');
  }
  if (CLIENT_CERTIFICATE_ALERT.test(code)) {
    return make('client-certificate-refused', 'the server refused our client certificate: tls.cert must be signed by a CA in the servers\' ssl.trustStore');
  }
  if (NOT_TLS.has(code)) {
    return make('not-a-tls-port', "the server did not answer in TLS: is this its plaintext clientPort? Use its secureClientPort");
  }
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) {
    return make('tls-error', 'the TLS handshake failed (no common protocol or cipher, or a client certificate the server needs)');
  }
  return undefined;
}
