/**
 * `connect()`'s fail-fast bookkeeping: failures that would repeat on every attempt end the wait at
 * once, with the error that says why, instead of retrying until `connectionTimeoutMs`
 * (docs/security.md, "What connect() says when TLS cannot work").
 *
 * - A server that is not ZooKeeper, or not the TLS we expect: only once every *distinct* server
 *   of the connect string has failed so. One bad entry hit again and again while another server
 *   is still starting must not fail the connect.
 * - Refused credentials (SASL or digest): every server refuses them alike, so the first refusal.
 */
import { AuthFailedError, InvalidArgumentError, TlsHandshakeError, ZooKeeperError } from '../errors.js';
import { distinctServers } from './connectString.js';

export class ConnectFailFast {
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout>;
  private readonly servers: number;
  private readonly badServers = new Set<string>();
  private notZooKeeper: Error | undefined;
  private authFailure: AuthFailedError | undefined;

  constructor(
    private readonly connectString: string,
    private readonly timeoutMs: number,
  ) {
    this.servers = distinctServers(connectString);
    this.timer = setTimeout(() => this.controller.abort(), timeoutMs);
  }

  /** Aborted at the connection timeout or on a failure that ends the wait. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The server at `address` answered in a way no retry can change (not ZooKeeper, TLS refused). */
  serverFailed(err: Error, address: string): void {
    this.badServers.add(address);
    if (this.badServers.size < this.servers) return;
    this.notZooKeeper ??= err;
    this.controller.abort();
  }

  /** The servers refused our credentials. */
  authFailed(err: AuthFailedError): void {
    this.authFailure ??= err;
    this.controller.abort();
  }

  /** `p`, or a rejection as soon as the wait ends. */
  guard<T>(p: Promise<T>): Promise<T> {
    const signal = this.controller.signal;
    if (signal.aborted) return Promise.reject(new Error('aborted'));
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => reject(new Error('aborted'));
      signal.addEventListener('abort', onAbort, { once: true });
      p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  /** The error `connect()` rejects with after `err` ended its wait. */
  errorFor(err: unknown): unknown {
    if (this.authFailure !== undefined) return this.authFailure;
    // A TLS failure says why itself (certificate, port): it is our error, cause included.
    if (this.notZooKeeper instanceof TlsHandshakeError) return this.notZooKeeper;
    if (this.notZooKeeper !== undefined) {
      return new InvalidArgumentError(
        `could not connect to ${this.connectString}: a server answered with bytes that are not ZooKeeper's protocol (is this a ZooKeeper client port?)`,
        { op: 'connect', cause: this.notZooKeeper },
      );
    }
    if (this.controller.signal.aborted) {
      return new ZooKeeperError('CONNECTION_LOSS', -4, `could not connect to ${this.connectString} within ${this.timeoutMs} ms`, {
        op: 'connect',
        cause: err,
      });
    }
    return err;
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}
