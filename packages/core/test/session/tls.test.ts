/** The TLS pieces that need no server: the option's validation, Node's connect options, which errors mean what. */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, TlsHandshakeError } from '../../src/errors.js';
import { parseZkSessionOptions } from '../../src/session/options.js';
import { handshakeCutShort, plaintextPortFailure, tlsFailureOf } from '../../src/session/tlsFailure.js';
import { tlsConnectOptions } from '../../src/session/tlsSocket.js';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

function nodeError(code: string, message = code): Error & { code: string } {
  return Object.assign(new Error(message), { code });
}

describe('the tls option', () => {
  it('takes PEM strings or Buffers, alone or in arrays, and keeps them as given', () => {
    const key = Buffer.from('key');
    const options = parseZkSessionOptions({
      connectString: 'a:1',
      tls: { ca: [PEM, Buffer.from(PEM)], cert: PEM, key, servername: 'zk.internal', rejectUnauthorized: true },
    });
    expect(options.tls).toEqual({ ca: [PEM, Buffer.from(PEM)], cert: PEM, key, servername: 'zk.internal', rejectUnauthorized: true });
    expect(parseZkSessionOptions({ connectString: 'a:1' }).tls).toBeUndefined();
  });

  it.each([
    [{ ca: PEM, certificate: PEM }, 'certificate'],
    [{ cert: PEM }, 'tls.cert and tls.key go together'],
    [{ key: PEM }, 'tls.cert and tls.key go together'],
    [{ ca: '' }, 'must not be empty'],
    [{ ca: 42 }, 'tls.ca'],
    [{ ca: [] }, 'tls.ca'],
    [{ rejectUnauthorized: 'no' }, 'tls.rejectUnauthorized'],
    [true, 'tls'],
  ])('refuses %j at once, naming the problem', (tls, words) => {
    const attempt = () => parseZkSessionOptions({ connectString: 'a:1', tls });
    expect(attempt).toThrow(InvalidArgumentError);
    expect(attempt).toThrow(words);
  });

  it("becomes Node's tls.connect options for each server, nothing added", () => {
    expect(tlsConnectOptions({ ca: PEM, cert: PEM, key: 'k' }, '127.0.0.1', 2281)).toEqual({ host: '127.0.0.1', port: 2281, ca: PEM, cert: PEM, key: 'k' });
    expect(tlsConnectOptions({ servername: 'zk', rejectUnauthorized: false, passphrase: 'p' }, 'zk1', 1)).toEqual({
      host: 'zk1',
      port: 1,
      servername: 'zk',
      rejectUnauthorized: false,
      passphrase: 'p',
    });
  });
});

describe('tlsFailureOf', () => {
  it.each([
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'untrusted-server-certificate'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'untrusted-server-certificate'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'untrusted-server-certificate'],
    ['CERT_HAS_EXPIRED', 'expired-server-certificate'],
    ['CERT_NOT_YET_VALID', 'expired-server-certificate'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'server-name-mismatch'],
    ['ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', 'client-certificate-refused'],
    ['ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE', 'client-certificate-refused'],
    ['ERR_SSL_TLSV1_ALERT_UNKNOWN_CA', 'client-certificate-refused'],
    ['ERR_SSL_SSLV3_ALERT_CERTIFICATE_EXPIRED', 'client-certificate-refused'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'not-a-tls-port'],
    ['ERR_SSL_PACKET_LENGTH_TOO_LONG', 'not-a-tls-port'],
    ['ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE', 'tls-error'],
    ['ERR_SSL_NO_PROTOCOLS_AVAILABLE', 'tls-error'],
    ['ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION', 'tls-error'],
  ] as const)('%s is %s', (code, reason) => {
    const cause = nodeError(code, `node says ${code}`);
    const failure = tlsFailureOf(cause, '127.0.0.1:2281');
    expect(failure).toBeInstanceOf(TlsHandshakeError);
    expect(failure).toMatchObject({ code: 'TLS_HANDSHAKE', reason, address: '127.0.0.1:2281', tlsCode: code, op: 'connect', cause });
    expect(failure!.message).toContain('127.0.0.1:2281');
    expect(failure!.message).toContain(code);
  });

  it('says what is wrong with a certificate out of its validity period, rather than "pass the CA"', () => {
    const expired = tlsFailureOf(nodeError('CERT_HAS_EXPIRED'), 'h:1')!;
    expect(expired.message).toMatch(/has expired/);
    expect(expired.message).not.toMatch(/pass the CA/);
    expect(tlsFailureOf(nodeError('CERT_NOT_YET_VALID'), 'h:1')!.message).toMatch(/not valid yet.*clock/);
    expect(tlsFailureOf(nodeError('ERR_SSL_SSLV3_ALERT_CERTIFICATE_EXPIRED'), 'h:1')!.message).toMatch(/our client certificate has expired/);
    expect(tlsFailureOf(nodeError('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), 'h:1')!.message).toMatch(/pass the CA/);
  });

  it('leaves TLS errors that may not repeat (a corrupted record, a server hiccup, a timeout) to the reconnection logic', () => {
    for (const code of ['ERR_SSL_DECRYPTION_FAILED_OR_BAD_RECORD_MAC', 'ERR_SSL_SSLV3_ALERT_BAD_RECORD_MAC', 'ERR_SSL_TLSV1_ALERT_INTERNAL_ERROR', 'ERR_TLS_HANDSHAKE_TIMEOUT', 'ERR_SSL_SOMETHING_NEW']) {
      expect(tlsFailureOf(nodeError(code), 'h:1')).toBeUndefined();
    }
  });

  it('leaves ordinary network errors to the reconnection logic', () => {
    for (const code of ['ECONNREFUSED', 'EHOSTUNREACH', 'ETIMEDOUT', 'ECONNRESET']) expect(tlsFailureOf(nodeError(code), 'h:1')).toBeUndefined();
    expect(tlsFailureOf(new Error('no code'), 'h:1')).toBeUndefined();
    expect(tlsFailureOf(undefined, 'h:1')).toBeUndefined();
  });

  it('a handshake cut short is a question for the port (plaintext, or a TLS server not serving yet), not an answer', () => {
    expect(handshakeCutShort(nodeError('ECONNRESET'), false)).toBe(true);
    expect(handshakeCutShort(nodeError('EPIPE'), false)).toBe(true);
    // A reset once the handshake is done is a dropped connection.
    expect(handshakeCutShort(nodeError('ECONNRESET'), true)).toBe(false);
    expect(handshakeCutShort(nodeError('ECONNREFUSED'), false)).toBe(false);
    const cause = nodeError('ECONNRESET');
    expect(plaintextPortFailure('h:1', cause)).toMatchObject({ code: 'TLS_HANDSHAKE', reason: 'not-a-tls-port', address: 'h:1', tlsCode: 'ECONNRESET', cause });
    expect(plaintextPortFailure('h:1', cause).message).toContain('secureClientPort');
  });

  it('tells the user what to change', () => {
    expect(tlsFailureOf(nodeError('SELF_SIGNED_CERT_IN_CHAIN'), 'h:1')!.message).toContain('tls.ca');
    expect(tlsFailureOf(nodeError('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED'), 'h:1')!.message).toContain('tls.cert and tls.key');
    expect(tlsFailureOf(nodeError('ERR_SSL_WRONG_VERSION_NUMBER'), 'h:1')!.message).toContain('secureClientPort');
    expect(tlsFailureOf(nodeError('ERR_TLS_CERT_ALTNAME_INVALID'), 'h:1')!.message).toContain('tls.servername');
  });
});
