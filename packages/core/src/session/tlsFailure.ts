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

/** A certificate outside its validity period: a clock or a renewal problem, not a trust one. */
const OUT_OF_DATE: Readonly<Record<string, string>> = {
  CERT_HAS_EXPIRED: "the server's certificate has expired: the servers need a renewed one (or this machine's clock is wrong)",
  CERT_NOT_YET_VALID: "the server's certificate is not valid yet: check this machine's clock (or the certificate's notBefore)",
};

/** Node's code for a TLS alert the peer sent (`ERR_SSL_TLSV1_ALERT_UNKNOWN_CA`...): the name of the alert after the prefix. */
export const TLS_ALERT = /^ERR_SSL_(?:SSLV3|TLSV1|TLSV13)_ALERT_(\w+)$/;

/** Alerts a server sends when it refuses our certificate, or requires one we did not send. */
const CLIENT_CERTIFICATE_ALERTS = new Set(['BAD_CERTIFICATE', 'UNSUPPORTED_CERTIFICATE', 'CERTIFICATE_REVOKED', 'CERTIFICATE_UNKNOWN', 'UNKNOWN_CA', 'ACCESS_DENIED', 'CERTIFICATE_REQUIRED']);

/**
 * No protocol version, cipher or key both sides accept: a configuration that fails the same way on
 * every attempt. Other OpenSSL errors (a bad record MAC, an internal error alert, a handshake
 * timeout) may be transient: those are left to the reconnection logic.
 */
const NEGOTIATION_FAILED = new Set([
  'ERR_SSL_NO_PROTOCOLS_AVAILABLE',
  'ERR_SSL_UNSUPPORTED_PROTOCOL',
  'ERR_SSL_VERSION_TOO_LOW',
  'ERR_SSL_WRONG_SSL_VERSION',
  'ERR_SSL_NO_SHARED_CIPHER',
  'ERR_SSL_NO_CIPHERS_AVAILABLE',
  'ERR_SSL_NO_SUITABLE_SIGNATURE_ALGORITHM',
  'ERR_SSL_EE_KEY_TOO_SMALL',
  'ERR_SSL_CA_KEY_TOO_SMALL',
  'ERR_SSL_CA_MD_TOO_WEAK',
  'ERR_SSL_DH_KEY_TOO_SMALL',
  'ERR_SSL_UNSAFE_LEGACY_RENEGOTIATION_DISABLED',
  'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION',
  'ERR_SSL_TLSV1_ALERT_INSUFFICIENT_SECURITY',
  'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE',
]);

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
 * ordinary network error (refused, unreachable, reset: see {@link handshakeCutShort}) or a TLS
 * error that may not repeat: those are the wire client's business, which tries the next server.
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
  const outOfDate = OUT_OF_DATE[code];
  if (outOfDate !== undefined) return make('expired-server-certificate', outOfDate);
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return make('server-name-mismatch', "the server's certificate does not name this host: connect by a name or address it carries, or set tls.servername");
  }
  const alert = TLS_ALERT.exec(code)?.[1];
  if (alert === 'CERTIFICATE_REQUIRED') {
    return make('client-certificate-refused', 'the server requires a client certificate: pass tls.cert and tls.key');
  }
  if (alert === 'CERTIFICATE_EXPIRED') {
    return make('client-certificate-refused', 'the server says our client certificate has expired or is not valid yet: renew tls.cert (or check the clocks)');
  }
  if (alert !== undefined && CLIENT_CERTIFICATE_ALERTS.has(alert)) {
    return make('client-certificate-refused', "the server refused our client certificate: tls.cert must be signed by a CA in the servers' ssl.trustStore");
  }
  if (NOT_TLS.has(code)) {
    return make('not-a-tls-port', 'the server did not answer in TLS: is this its plaintext clientPort? Use its secureClientPort');
  }
  if (NEGOTIATION_FAILED.has(code)) {
    return make('tls-error', 'the TLS handshake failed: no protocol version, cipher or key size both sides accept');
  }
  return undefined;
}
