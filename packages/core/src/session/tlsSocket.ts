/**
 * TLS for node-zookeeper-client 1.1.3, which only knows `net.connect`: a TLS session's
 * ConnectionManager gets its own `connect()`, the 1.1.3 one step for step (pinned in `wire.ts`)
 * except that the socket is `tls.connect`'s and the connect request waits for `secureConnect`.
 * Every connection of the generation goes through it: the first, reconnections, failover.
 * See docs/security.md.
 */
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import type { TlsHandshakeError } from '../errors.js';
import { speaksPlaintextZooKeeper } from './plaintextPortProbe.js';
import { handshakeCutShort, plaintextPortFailure, tlsFailureOf } from './tlsFailure.js';
import type { TlsOptions } from './tlsOptions.js';
import { CM_STATES, type ConnectionManager } from './wire.js';

/** The parts of 1.1.3's ConnectionManager that its `connect()` uses (lib/ConnectionManager.js). */
interface ConnectingManager extends ConnectionManager {
  setState(state: number): void;
  findNextServer(callback: (server: { host: string; port: number | string }) => void): void;
  connectTimeoutHandler: ReturnType<typeof setTimeout> | null;
  onSocketConnectTimeout(): void;
  onSocketDrain(): void;
  onSocketClosed(hadError: boolean): void;
  onSocketError(error: Error): void;
}

/** Node's `tls.connect` options for one server, from the session's `tls` option. */
export function tlsConnectOptions(tls: TlsOptions, host: string, port: number): ConnectionOptions {
  const options: ConnectionOptions = { host, port };
  if (tls.ca !== undefined) options.ca = tls.ca;
  if (tls.cert !== undefined) options.cert = tls.cert;
  if (tls.key !== undefined) options.key = tls.key;
  if (tls.passphrase !== undefined) options.passphrase = tls.passphrase;
  if (tls.servername !== undefined) options.servername = tls.servername;
  if (tls.rejectUnauthorized !== undefined) options.rejectUnauthorized = tls.rejectUnauthorized;
  return options;
}

/**
 * Makes every connection of `cm` a TLS connection. Must run before `cm.connect()`. A TLS failure
 * (see `tlsFailure.ts`) is passed to `onFailure` as well as ending the socket, so `connect()` can
 * fail with it at once instead of retrying until its timeout.
 */
export function connectOverTls(cm: ConnectionManager, tls: TlsOptions, onFailure: (err: TlsHandshakeError) => void): void {
  const manager = cm as ConnectingManager;
  // Servers asked whether they speak plaintext (once each: a port does not change its mind).
  const probed = new Set<string>();
  manager.connect = function connectTls(this: ConnectingManager): void {
    const self = this;
    self.setState(CM_STATES.CONNECTING);
    self.findNextServer((server) => {
      const address = `${server.host}:${server.port}`;
      const socket: TLSSocket = tlsConnect(tlsConnectOptions(tls, server.host, Number(server.port)));
      self.socket = socket;
      self.connectTimeoutHandler = setTimeout(() => self.onSocketConnectTimeout(), self.connectTimeout);
      socket.setNoDelay();
      let secured = false;
      // 1.1.3 writes its connect request on 'connect'; over TLS that is 'secureConnect' (the
      // server's certificate checked). No 'connect' listener: the request must not go out before.
      // Handlers are looked up when called: the session replaces them on the instance (hardening,
      // retirement), and a retired generation must not write even on a socket opened before.
      socket.on('secureConnect', () => {
        secured = true;
        self.onSocketConnected();
      });
      socket.on('data', (chunk: Buffer) => self.onSocketData(chunk));
      socket.on('drain', () => self.onSocketDrain());
      socket.on('close', (hadError: boolean) => self.onSocketClosed(hadError));
      socket.on('error', (error: Error) => {
        // Only while the session is being (re)established: a failure then is about who we talk to.
        if (self.state === CM_STATES.CONNECTING) {
          const failure = tlsFailureOf(error, address);
          if (failure !== undefined) {
            onFailure(failure);
          } else if (handshakeCutShort(error, secured) && !probed.has(address)) {
            probed.add(address);
            void speaksPlaintextZooKeeper(server.host, Number(server.port)).then((plaintext) => {
              if (plaintext) onFailure(plaintextPortFailure(address, error));
            });
          }
        }
        self.onSocketError(error);
      });
    });
  };
}
