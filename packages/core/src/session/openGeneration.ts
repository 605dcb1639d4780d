/**
 * Opens a generation: a new wire client with our work-arounds installed (`wireHardening.ts`), TLS
 * or the TLS-port probe, the SASL exchange on every connection, the digest credentials, then the
 * connect (docs/architecture.md, "The session"; docs/security.md).
 */
import { TlsHandshakeError, type AuthFailedError } from '../errors.js';
import { watchConnectAttempts, type AttemptState } from './connectAttempts.js';
import { withoutChroot } from './frames.js';
import { Generation } from './generation.js';
import type { ZkSessionOptions } from './options.js';
import { SaslHandshake } from './sasl/saslHandshake.js';
import { connectOverTls } from './tlsSocket.js';
import { detectTlsPorts } from './tlsPortProbe.js';
import { createWireClient, currentServer } from './wire.js';
import { installHardening } from './wireHardening.js';

/** What a generation tells its session; nothing is told once it is retired. */
export interface GenerationListener {
  /** The wire client's connection state changed (one of `CM_STATES`). */
  wireState(gen: Generation, state: number): void;
  /**
   * A server failed in a way we recovered from by dropping the connection (or that `connect()`
   * fails on), at `address` (`host:port`).
   */
  wireFailed(gen: Generation, err: Error, address: string): void;
  /** The servers refused our SASL credentials, or could not prove they know the password. */
  saslFailed(gen: Generation, err: AuthFailedError): void;
  /** A watcher threw. */
  watcherFailed(err: Error): void;
  /**
   * A connection to the server at `address` got as far as `state`; told only while `connect()`
   * waits for the first session (`firstConnectPending`).
   */
  connectAttempt(gen: Generation, address: string, state: AttemptState): void;
  /** Whether `connect()` still waits for the first session: a TLS-only port is then named at once. */
  firstConnectPending(): boolean;
}

/** Opens generation `n`; its connect starts after `connectDelayMs` (after refused credentials). */
export function openGeneration(n: number, options: ZkSessionOptions, listener: GenerationListener, connectDelayMs = 0): Generation {
  const client = createWireClient(options.connectString, options.sessionTimeoutMs);
  const gen = new Generation(n, client, (err) => listener.watcherFailed(err));
  const onWireError = (err: Error): void => {
    if (gen.retired) return;
    listener.wireFailed(gen, err, err instanceof TlsHandshakeError ? err.address : currentServer(gen.cm).address);
  };
  installHardening(gen.cm, {
    clock: gen.clock,
    now: () => performance.now(),
    onError: onWireError,
    isDisposed: () => gen.retired,
    notified: (type, serverPath) => gen.notified(type, withoutChroot(gen.chroot, serverPath)),
    // SASL on every connection, before the wire client may send anything else (docs/security.md).
    connecting:
      options.sasl === undefined
        ? undefined
        : new SaslHandshake(options.sasl, {
            cm: gen.cm,
            clock: gen.clock,
            now: () => performance.now(),
            onFailed: (err) => listener.saslFailed(gen, err),
          }).onConnectingFrame,
  });
  const firstConnectPending = (): boolean => !gen.retired && !gen.established && listener.firstConnectPending();
  // TLS on every connection of the generation; without it, a TLS-only port is named as such.
  if (options.tls !== undefined) connectOverTls(gen.cm, options.tls, onWireError);
  else detectTlsPorts(gen.cm, firstConnectPending, onWireError);
  watchConnectAttempts(gen.cm, firstConnectPending, (address, state) => listener.connectAttempt(gen, address, state));
  gen.cm.on('state', (s) => listener.wireState(gen, s));
  for (const a of options.auth) client.addAuthInfo(a.scheme, Buffer.from(a.credentials));
  if (connectDelayMs > 0) gen.connectTimer = setTimeout(() => client.connect(), connectDelayMs);
  else client.connect();
  return gen;
}
