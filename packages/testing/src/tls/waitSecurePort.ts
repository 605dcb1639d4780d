/**
 * Waits until a TLS test server completes a handshake on its secure port. `srvr` on the plaintext
 * port says the server serves; this says its TLS listener is up, with the test certificates.
 */
import { connect } from 'node:tls';
import { testCertificates } from './testCertificates.js';

/** Resolves once `127.0.0.1:port` completes a TLS handshake as alice; rejects with the last failure after `timeoutMs`. */
export async function waitSecurePort(port: number, timeoutMs: number): Promise<void> {
  const certs = testCertificates();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const failure = await new Promise<Error | undefined>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port, ca: certs.ca, ...certs.clients.alice });
      const timer = setTimeout(() => finish(new Error('no TLS handshake within 1000 ms')), 1_000);
      const finish = (err: Error | undefined): void => {
        clearTimeout(timer);
        socket.destroy();
        resolve(err);
      };
      socket.once('secureConnect', () => finish(undefined));
      socket.once('error', (err) => finish(err));
    });
    if (failure === undefined) return;
    if (Date.now() > deadline) throw new Error(`TLS port 127.0.0.1:${port}: no handshake after ${timeoutMs} ms: ${failure.message}`, { cause: failure });
    await new Promise((r) => setTimeout(r, 50));
  }
}
