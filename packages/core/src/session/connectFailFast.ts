/**
 * `connect()`'s fail-fast bookkeeping: failures that would repeat on every attempt end the wait at
 * once, with the error that says why, instead of retrying until `connectionTimeoutMs`
 * (docs/errors.md, "Connecting"; docs/security.md, "What connect() says when TLS cannot work").
 *
 * - A server that is not ZooKeeper, or not the TLS we expect: only once every *distinct* server
 *   of the connect string has failed so. One bad entry hit again and again while another server
 *   is still starting must not fail the connect.
 * - Unreachable servers (a host name that does not resolve, a port nothing listens on): once the
 *   latest connection to every distinct server failed so.
 * - Refused credentials (SASL or digest): every server refuses them alike, so the first refusal.
 *
 * When the wait ends at `connectionTimeoutMs` instead, the error says what each server did.
 */
import { AuthFailedError, InvalidArgumentError, TlsHandshakeError, ZooKeeperError } from '../errors.js';
import type { AttemptState } from './connectAttempts.js';
import { distinctServers } from './connectString.js';

/**
 * Socket errors that say the server cannot be reached at all: the resolver's answer that the
 * name does not exist, the host's that nothing listens on the port. One of each per server is
 * enough: the wire client tries again within its spin delay (under 200 ms), too soon for a
 * server that is starting to have opened its port, so more rounds would only delay the same
 * verdict; waiting for a server still starting is the caller's retry (the error is
 * `CONNECTION_LOSS`). `EAI_AGAIN` (the resolver did not answer) is a passing failure: retried
 * until the timeout, and named then.
 */
const UNREACHABLE_CODES: ReadonlySet<string> = new Set(['ENOTFOUND', 'ECONNREFUSED']);

export class ConnectFailFast {
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout>;
  /** The distinct servers of the connect string, `host:port`. */
  private readonly servers: readonly string[];
  private readonly badServers = new Set<string>();
  /** How far the latest connection to each server got, in the order the servers were first tried. */
  private readonly attempts = new Map<string, AttemptState>();
  private lastSocketError: Error | undefined;
  private notZooKeeper: Error | undefined;
  private unreachable: Error | undefined;
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
    if (this.badServers.size < this.servers.length) return;
    this.notZooKeeper ??= err;
    this.controller.abort();
  }

  /** A connection to the server at `address` got as far as `state` (see `connectAttempts.ts`). */
  attempted(address: string, state: AttemptState): void {
    // A new connection says nothing until it gets somewhere: keep what the previous one said.
    if (state.phase === 'connecting' && this.attempts.has(address)) return;
    this.attempts.set(address, state);
    if (state.phase !== 'failed') return;
    this.lastSocketError = state.error;
    if (this.attempts.size < this.servers.length || ![...this.attempts.values()].every(isUnreachable)) return;
    this.unreachable ??= state.error;
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
        // The wire client's own error says how the bytes broke its decoder: kept as the issue.
        { op: 'connect', issues: [{ path: ['connectString'], message: `not ZooKeeper's protocol: ${this.notZooKeeper.message}` }] },
      );
    }
    if (this.unreachable !== undefined) {
      return new ZooKeeperError('CONNECTION_LOSS', -4, `could not connect to ${this.connectString}: ${this.whatServersDid()}`, {
        op: 'connect',
        cause: this.unreachable,
      });
    }
    if (this.controller.signal.aborted) {
      const found = this.whatServersDid();
      // The cause is the servers' last socket error, if any: the abort itself says nothing.
      return new ZooKeeperError('CONNECTION_LOSS', -4, `could not connect to ${this.connectString} within ${this.timeoutMs} ms${found === '' ? '' : `: ${found}`}`, {
        op: 'connect',
        cause: this.lastSocketError,
      });
    }
    return err;
  }

  dispose(): void {
    clearTimeout(this.timer);
  }

  /** What the latest connection to each server came to, in words, servers named. */
  private whatServersDid(): string {
    const did = [...this.attempts].map(([address, state]) => describeAttempt(address, state));
    // The wire client tries one server at a time: a silent one can take up the whole wait.
    const untried = this.servers.filter((address) => !this.attempts.has(address));
    if (did.length > 0 && untried.length > 0) did.push(`${untried.join(', ')} not tried in that time`);
    return did.join('; ');
  }
}

function isUnreachable(state: AttemptState): boolean {
  return state.phase === 'failed' && UNREACHABLE_CODES.has(codeOf(state.error));
}

function codeOf(error: Error): string {
  const code = (error as Error & { code?: unknown }).code;
  return typeof code === 'string' ? code : '';
}

function describeAttempt(address: string, state: AttemptState): string {
  switch (state.phase) {
    case 'connecting':
      return `${address} did not accept the connection`;
    case 'accepted':
      return `${address} accepted the connection but never answered the ZooKeeper handshake`;
    case 'answered':
      return `${address} answered, but no session was ready in time`;
    case 'closed':
      return `${address} closed the connection without answering (as a server that is not serving yet does, e.g. an ensemble member without a quorum)`;
    case 'failed': {
      const code = codeOf(state.error);
      if (code === 'ENOTFOUND') return `${address}: the host name does not resolve (ENOTFOUND)`;
      if (code === 'ECONNREFUSED') return `${address} refused the connection (ECONNREFUSED: nothing listens on that port)`;
      return `${address}: ${state.error.message}`;
    }
  }
}
