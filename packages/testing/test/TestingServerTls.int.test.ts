/** A TestingServer with `tls` serves TLS with the test certificates, and keeps its plaintext port. */
import { connect, type PeerCertificate } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fourLetterWord, parseMode } from '../src/fourLetterWord.js';
import { TestingServer } from '../src/TestingServer.js';

let server: TestingServer;

beforeAll(async () => {
  server = await TestingServer.start({ forceSync: false, tls: true });
});

afterAll(async () => {
  await server?.stop();
});

/**
 * A TLS handshake with `options`: the server's certificate, or the error; then, for a secured
 * connection, whether the server kept it: it answers a four-letter word over it, or it refuses us
 * (an alert, or the end of the stream) instead.
 */
function handshake(options: { ca: string; cert?: string; key?: string }): Promise<{ peer?: PeerCertificate; error?: Error & { code?: string }; closedByServer: boolean }> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: server.tls!.ports[0]!, ...options });
    let peer: PeerCertificate | undefined;
    const settle = (result: { error?: Error & { code?: string }; closedByServer: boolean }): void => {
      socket.destroy();
      resolve({ ...(peer === undefined ? {} : { peer }), ...result });
    };
    socket.once('secureConnect', () => {
      peer = socket.getPeerCertificate();
      // Under TLS 1.3 the server judges our certificate after our side is done: its verdict (an alert)
      // comes before any answer to what we send.
      socket.write('srvr');
    });
    socket.once('data', (chunk: Buffer) => settle({ closedByServer: !chunk.toString('latin1').startsWith('Zookeeper version') }));
    socket.once('error', (error) => settle({ error, closedByServer: true }));
    socket.once('end', () => settle({ closedByServer: true }));
  });
}

describe('TestingServer.start({ tls: true })', () => {
  it('exposes the secure port and the certificates, and keeps the plaintext port serving', async () => {
    const tls = server.tls!;
    expect(tls.connectString).toBe(`127.0.0.1:${tls.ports[0]}`);
    expect(tls.ports[0]).not.toBe(server.port);
    expect(tls.clientAuth).toBe('need');
    for (const pem of [tls.ca, tls.clients.alice.cert, tls.clients.bob.cert, tls.untrusted.ca, tls.untrusted.cert]) expect(pem).toMatch(/^-----BEGIN CERTIFICATE-----/);
    for (const pem of [tls.clients.alice.key, tls.clients.bob.key, tls.untrusted.key]) expect(pem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(parseMode(await fourLetterWord('127.0.0.1', server.port, 'srvr'))).toBe('standalone');
  });

  it("completes a handshake with alice's certificate, presenting a certificate for 127.0.0.1 signed by the test CA", async () => {
    const tls = server.tls!;
    const result = await handshake({ ca: tls.ca, ...tls.clients.alice });
    expect(result.error).toBeUndefined();
    expect(result.closedByServer).toBe(false);
    expect(result.peer?.subject.CN).toBe('localhost');
    expect(result.peer?.subjectaltname).toContain('IP Address:127.0.0.1');
  });

  it('refuses a client certificate from another CA, and a client without one', async () => {
    const tls = server.tls!;
    const mallory = await handshake({ ca: tls.ca, cert: tls.untrusted.cert, key: tls.untrusted.key });
    expect(mallory.closedByServer).toBe(true);
    const anonymous = await handshake({ ca: tls.ca });
    expect(anonymous.closedByServer).toBe(true);
  });

  it("is not trusted by a client that trusts another CA", async () => {
    const tls = server.tls!;
    const result = await handshake({ ca: tls.untrusted.ca, ...tls.clients.alice });
    expect(result.error?.code).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  });
});
