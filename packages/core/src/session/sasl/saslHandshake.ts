/**
 * SASL DIGEST-MD5 on every connection of a generation, before the wire client sees the connect
 * response. ZooKeeper answers SASL requests at once, outside its request pipeline, so a request
 * sent before the exchange ends could be answered before it, by a server that does not know us
 * yet (ZooKeeper's Java client holds its queue the same way). Holding the connect response keeps
 * the wire client in CONNECTING: its queue (requests, set-watches, digest auth) stays unsent and
 * the session is not `connected`/`reconnected` until the server has accepted us and proved it
 * knows the password. See docs/security.md and docs/architecture.md (the session).
 *
 * The exchange, as ZooKeeper's own client runs it for DIGEST-MD5: an empty first token (the
 * mechanism has no initial response), the server's challenge, our response, the server's
 * `rspauth`. Requests carry the next xid of the wire client's counter, as any request does.
 */
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { AuthFailedError } from '../../errors.js';
import { ZK_AUTH_FAILED, ZK_SESSION_CLOSED_REQUIRE_SASL_AUTH } from '../errorMapping.js';
import type { ConnectionManager } from '../wire.js';
import type { WireClock } from '../wireClock.js';
import { digestResponse, newCnonce, parseDigestChallenge, rspauthMatches } from './digestMd5.js';
import type { SaslOptions } from './options.js';
import { decodeSaslReply, saslRequestFrame } from './saslPacket.js';

/**
 * The digest-uri ZooKeeper's client and server agree on for DIGEST-MD5: service `zookeeper`,
 * and the host name both hard-wire, `zk-sasl-md5` (also the server's realm).
 */
export const ZOOKEEPER_DIGEST_URI = 'zookeeper/zk-sasl-md5';


export interface SaslHandshakeHooks {
  cm: ConnectionManager;
  clock: WireClock;
  now(): number;
  /** The exchange failed on the current connection (the socket is destroyed right after). */
  onFailed(err: AuthFailedError): void;
  /** Random bytes for the client nonce (tests pass a fixed source). */
  random?: (n: number) => Buffer;
}

type Step = 'connect-response' | 'challenge' | 'rspauth' | 'done' | 'failed';

export class SaslHandshake {
  private socket: Socket | undefined;
  private step: Step = 'connect-response';
  private held: Buffer | undefined;
  private xid = 0;
  private expectedRspauth = '';

  constructor(
    private readonly options: SaslOptions,
    private readonly hooks: SaslHandshakeHooks,
  ) {}

  /**
   * Sees each frame read while the wire client waits for its connect response. Returns the frame
   * to hand on to it now: the connect response once the server has authenticated us (or at once
   * when the session expired: there is nothing to authenticate), else nothing.
   */
  readonly onConnectingFrame = (socket: Socket, frame: Buffer): Buffer | undefined => {
    if (socket !== this.socket) {
      // A new connection: its first frame is the connect response.
      this.socket = socket;
      this.step = 'connect-response';
      this.held = undefined;
    }
    try {
      return this.advance(socket, frame);
    } catch (err) {
      this.fail(socket, `the server's SASL reply could not be read: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      return undefined;
    }
  };

  private advance(socket: Socket, frame: Buffer): Buffer | undefined {
    switch (this.step) {
      case 'connect-response':
        // timeOut <= 0: the session expired; the wire client reports it, nothing to authenticate.
        if (frame.length < 12 || frame.readInt32BE(8) <= 0) return frame;
        this.held = frame;
        this.step = 'challenge';
        this.send(socket, Buffer.alloc(0));
        return undefined;
      case 'challenge':
      case 'rspauth':
        return this.onReply(socket, frame);
      default:
        // Done (the wire client is CONNECTED by now) or failed (the socket is going): not ours.
        return this.step === 'done' ? frame : undefined;
    }
  }

  private onReply(socket: Socket, frame: Buffer): Buffer | undefined {
    const reply = decodeSaslReply(frame);
    if (reply.xid !== this.xid) {
      this.fail(socket, `the server answered xid ${reply.xid} while the SASL request ${this.xid} waited`);
      return undefined;
    }
    this.hooks.clock.handshakeReplied(reply.xid, this.hooks.now());
    if (reply.err !== 0) {
      const why =
        reply.err === ZK_AUTH_FAILED
          ? 'the server refused the credentials'
          : reply.err === ZK_SESSION_CLOSED_REQUIRE_SASL_AUTH
            ? 'the server requires SASL and refused this client'
            : `the server answered error ${reply.err}`;
      this.fail(socket, why, { zkCode: reply.err });
      return undefined;
    }
    if (this.step === 'challenge') {
      if (reply.token === null || reply.token.length === 0) {
        this.fail(socket, 'the server offers no SASL (no JAAS Server section?) and sent no challenge');
        return undefined;
      }
      const challenge = parseDigestChallenge(reply.token);
      const response = this.response(challenge);
      if (response === undefined) {
        this.fail(socket, 'the user name or password cannot be sent: it has characters outside ISO 8859-1 and the server does not offer charset=utf-8');
        return undefined;
      }
      const { token, rspauth } = response;
      this.expectedRspauth = rspauth;
      this.step = 'rspauth';
      this.send(socket, token);
      return undefined;
    }
    if (reply.token === null || !rspauthMatches(reply.token, this.expectedRspauth)) {
      this.fail(socket, 'the server did not prove it knows the password (wrong rspauth)');
      return undefined;
    }
    this.step = 'done';
    const held = this.held!;
    this.held = undefined;
    return held;
  }

  /** Our response to `challenge`; `undefined` when our credentials cannot be encoded for it. */
  private response(challenge: ReturnType<typeof parseDigestChallenge>): ReturnType<typeof digestResponse> | undefined {
    try {
      return digestResponse({
        username: this.options.username,
        password: this.options.password,
        realm: challenge.realms[0],
        nonce: challenge.nonce,
        cnonce: newCnonce(this.hooks.random ?? randomBytes),
        nc: 1,
        digestUri: ZOOKEEPER_DIGEST_URI,
        utf8: challenge.utf8,
      });
    } catch (err) {
      if (err instanceof RangeError) return undefined;
      throw err;
    }
  }

  private send(socket: Socket, token: Uint8Array): void {
    const cm = this.hooks.cm;
    this.xid = cm.xid;
    cm.xid += 1;
    socket.write(saslRequestFrame(this.xid, token));
  }

  private fail(socket: Socket, why: string, options: { cause?: unknown; zkCode?: number } = {}): void {
    this.step = 'failed';
    this.held = undefined;
    const { mechanism, username } = this.options;
    this.hooks.onFailed(new AuthFailedError(mechanism, username, `SASL ${mechanism} authentication as '${username}' failed: ${why}`, options));
    socket.destroy();
  }
}
