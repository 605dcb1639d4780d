/**
 * A session without `tls` that reaches a port speaking only TLS (a `secureClientPort`): the
 * server drops our plaintext connect request without a byte, exactly as a server that is not
 * serving yet (in an election) does, so that alone proves nothing. Only while connecting, when a
 * server closed the connection before answering anything, we ask that server once, on a separate
 * connection, whether it completes a TLS handshake; if it does, the port is TLS and trying again
 * in plaintext can never work. See docs/security.md.
 */
import { connect as tlsConnect } from 'node:tls';
import { TlsHandshakeError } from '../errors.js';
import { PROBE_TIMEOUT_MS, probe } from './portProbe.js';
import { TLS_ALERT } from './tlsFailure.js';
import { CM_STATES, currentServer, type ConnectionManager } from './wire.js';

/**
 * Whether `host:port` answers a TLS ClientHello as a TLS server does: the handshake completes, or
 * the server answers with a TLS alert (it wants a client certificate we do not have). A plaintext
 * ZooKeeper port closes the connection on the hello; silence counts as no.
 */
export function speaksTls(host: string, port: number, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
  // Only whether it speaks TLS, not whom: no certificate is checked and nothing is sent.
  return probe(
    tlsConnect({ host, port, rejectUnauthorized: false }),
    (socket, answer) => {
      socket.once('secureConnect', () => answer(true));
      socket.once('error', (err: Error & { code?: string }) => answer(TLS_ALERT.test(err.code ?? '')));
    },
    timeoutMs,
  );
}

/**
 * Watches `cm`'s plaintext connections: one closed by the server before any byte came back,
 * while `probing()` holds (the session's first connection), gets its server probed, once per
 * server; a TLS server is reported to `onFailure`. Must run before `cm.connect()`.
 */
export function detectTlsPorts(cm: ConnectionManager, probing: () => boolean, onFailure: (err: TlsHandshakeError) => void): void {
  const probed = new Set<string>();
  const connected = cm.onSocketConnected;
  cm.onSocketConnected = function onSocketConnectedProbing(this: ConnectionManager): void {
    const socket = this.socket;
    connected.call(this);
    if (socket === undefined || !probing()) return;
    // Named as in the connect string, as TLS failures are: connect() counts servers by it.
    const { host, port, address } = currentServer(this);
    let answered = false;
    socket.once('data', () => (answered = true));
    socket.once('close', () => {
      if (answered || probed.has(address) || !probing()) return;
      probed.add(address);
      void speaksTls(host, port).then((tls) => {
        if (!tls || !probing() || cm.state === CM_STATES.CONNECTED) return;
        onFailure(
          new TlsHandshakeError(
            'tls-port',
            address,
            `${address} speaks TLS only (a secureClientPort) and closed our plaintext connection: pass the tls option, or use the server's plaintext clientPort`,
          ),
        );
      });
    });
  };
}
