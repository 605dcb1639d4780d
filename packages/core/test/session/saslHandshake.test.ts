/**
 * The SASL exchange on one connection, against a scripted server: what is written, what is held
 * back, and how each failure ends (no server, no socket: the frames are built by hand).
 */
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { AuthFailedError } from '../../src/errors.js';
import { JuteReader, JuteWriter } from '../../src/session/frames.js';
import { parseDirectives } from '../../src/session/sasl/directives.js';
import { digestResponse } from '../../src/session/sasl/digestMd5.js';
import { OP_SASL } from '../../src/session/sasl/saslPacket.js';
import { SaslHandshake, ZOOKEEPER_DIGEST_URI } from '../../src/session/sasl/saslHandshake.js';
import type { ConnectionManager } from '../../src/session/wire.js';
import { WireClock } from '../../src/session/wireClock.js';

const CHALLENGE = 'realm="zk-sasl-md5",nonce="bm9uY2Utb2YtdGhlLXNlcnZlcg==",charset=utf-8,algorithm=md5-sess';
const CNONCE_BYTE = 7;

class FakeSocket {
  written: Buffer[] = [];
  destroyed = false;
  write(b: Buffer): boolean {
    this.written.push(b);
    return true;
  }
  destroy(): void {
    this.destroyed = true;
  }
}

/** A connect response granting `timeOut` ms (only its timeOut is read before the wire client gets it). */
function connectResponse(timeOut: number): Buffer {
  return new JuteWriter().int(0).int(timeOut).buffer(Buffer.alloc(8, 1)).buffer(Buffer.alloc(16, 2)).frame();
}

function saslReply(xid: number, err: number, token: string | null): Buffer {
  const w = new JuteWriter().int(xid).int(0).int(0).int(err);
  return (token === null ? w.int(-1) : w.buffer(Buffer.from(token, 'latin1'))).frame();
}

/** xid, opcode and token of a SASL request frame. */
function request(frame: Buffer): { xid: number; type: number; token: string } {
  const r = new JuteReader(frame, 4);
  return { xid: r.int(), type: r.int(), token: r.buffer().toString('latin1') };
}

function setUp(password = 'pw-a') {
  const socket = new FakeSocket();
  const cm = { xid: 5 } as ConnectionManager;
  const failures: AuthFailedError[] = [];
  const handshake = new SaslHandshake(
    { mechanism: 'DIGEST-MD5', username: 'alice', password },
    { cm, clock: new WireClock(0, 4000), now: () => 1, onFailed: (err) => failures.push(err), random: (n) => Buffer.alloc(n, CNONCE_BYTE) },
  );
  const feed = (frame: Buffer, s: FakeSocket = socket) => handshake.onConnectingFrame(s as unknown as Socket, frame);
  return { socket, cm, failures, feed };
}

/** What a server that knows `pw-a` answers to a response token. */
function serverRspauth(responseToken: string): { valid: boolean; rspauth: string } {
  const d = parseDirectives(responseToken);
  const expected = digestResponse({
    username: 'alice',
    password: 'pw-a',
    realm: 'zk-sasl-md5',
    nonce: d.get('nonce')![0]!,
    cnonce: d.get('cnonce')![0]!,
    nc: 1,
    digestUri: d.get('digest-uri')![0]!,
    utf8: true,
  });
  const sent = parseDirectives(expected.token.toString('latin1')).get('response')![0];
  return { valid: sent === d.get('response')![0], rspauth: expected.rspauth };
}

describe('SaslHandshake', () => {
  it('holds the connect response through the exchange and hands it on once the server proved itself', () => {
    const { socket, cm, failures, feed } = setUp();
    const connect = connectResponse(4000);
    expect(feed(connect)).toBeUndefined();
    expect(socket.written.map(request)).toEqual([{ xid: 5, type: OP_SASL, token: '' }]);

    expect(feed(saslReply(5, 0, CHALLENGE))).toBeUndefined();
    const second = request(socket.written[1]!);
    expect(second.xid).toBe(6);
    const d = parseDirectives(second.token);
    expect(d.get('username')).toEqual(['alice']);
    expect(d.get('realm')).toEqual(['zk-sasl-md5']);
    expect(d.get('digest-uri')).toEqual([ZOOKEEPER_DIGEST_URI]);
    expect(d.get('cnonce')).toEqual([Buffer.alloc(16, CNONCE_BYTE).toString('base64')]);
    expect(d.get('charset')).toEqual(['utf-8']);
    expect(second.token).not.toContain('pw-a');
    const server = serverRspauth(second.token);
    expect(server.valid).toBe(true);

    expect(feed(saslReply(6, 0, `rspauth=${server.rspauth}`))).toBe(connect);
    expect(cm.xid).toBe(7);
    expect(failures).toEqual([]);
    expect(socket.destroyed).toBe(false);
  });

  it('a server that cannot prove it knows the password: AUTH_FAILED, the socket dropped', () => {
    const { socket, failures, feed } = setUp();
    feed(connectResponse(4000));
    feed(saslReply(5, 0, CHALLENGE));
    expect(feed(saslReply(6, 0, 'rspauth=0123456789abcdef0123456789abcdef'))).toBeUndefined();
    expect(failures).toHaveLength(1);
    expect(failures[0]).toBeInstanceOf(AuthFailedError);
    expect(failures[0]).toMatchObject({ code: 'AUTH_FAILED', mechanism: 'DIGEST-MD5', username: 'alice', zkCode: undefined });
    expect(failures[0]!.message).toMatch(/rspauth/);
    expect(socket.destroyed).toBe(true);
  });

  it("the server's refusal (AUTH_FAILED, no token): its code kept, the user named, never the password", () => {
    const { socket, failures, feed } = setUp('not-the-password');
    feed(connectResponse(4000));
    feed(saslReply(5, 0, CHALLENGE));
    expect(feed(saslReply(6, -115, null))).toBeUndefined();
    expect(failures[0]).toMatchObject({ code: 'AUTH_FAILED', zkCode: -115, op: 'connect' });
    expect(failures[0]!.message).toContain("'alice'");
    expect(failures[0]!.message).toContain('DIGEST-MD5');
    expect(failures[0]!.message).not.toContain('not-the-password');
    expect(socket.destroyed).toBe(true);
  });

  it('a server without SASL (an empty answer to the first request) fails at once', () => {
    const { failures, feed } = setUp();
    feed(connectResponse(4000));
    feed(saslReply(5, 0, null));
    expect(failures[0]!.message).toMatch(/offers no SASL/);
  });

  it('a malformed challenge or an unexpected xid fails the exchange', () => {
    const bad = setUp();
    bad.feed(connectResponse(4000));
    bad.feed(saslReply(5, 0, 'nonce="x"'));
    expect(bad.failures[0]!.message).toMatch(/algorithm/);
    const stray = setUp();
    stray.feed(connectResponse(4000));
    stray.feed(saslReply(9, 0, CHALLENGE));
    expect(stray.failures[0]!.message).toMatch(/xid 9/);
    const truncated = setUp();
    truncated.feed(connectResponse(4000));
    truncated.feed(saslReply(5, 0, CHALLENGE).subarray(0, 30));
    expect(truncated.failures[0]!.message).toMatch(/could not be read/);
  });

  it('a password outside ISO 8859-1, to a server without charset=utf-8: says so, not "could not be read"', () => {
    const { feed, socket, failures } = setUp('pässwörd-€');
    feed(connectResponse(4000));
    feed(saslReply(5, 0, CHALLENGE.replace(',charset=utf-8', '')));
    expect(failures[0]).toMatchObject({ code: 'AUTH_FAILED', mechanism: 'DIGEST-MD5', username: 'alice' });
    expect(failures[0]!.message).toMatch(/outside ISO 8859-1 and the server does not offer charset=utf-8/);
    expect(failures[0]!.message).not.toMatch(/could not be read|pässwörd/);
    expect(socket.destroyed).toBe(true);
  });

  it('an expired session (timeOut 0) goes straight to the wire client: nothing to authenticate', () => {
    const { socket, feed } = setUp();
    const expired = connectResponse(0);
    expect(feed(expired)).toBe(expired);
    expect(socket.written).toEqual([]);
  });

  it('every connection runs its own exchange (a reconnection authenticates again)', () => {
    const { feed, socket, failures } = setUp();
    feed(connectResponse(4000));
    feed(saslReply(5, 0, CHALLENGE));
    const next = new FakeSocket();
    const connect = connectResponse(4000);
    expect(feed(connect, next)).toBeUndefined();
    expect(request(next.written[0]!)).toEqual({ xid: 7, type: OP_SASL, token: '' });
    feed(saslReply(7, 0, CHALLENGE), next);
    const { rspauth } = serverRspauth(request(next.written[1]!).token);
    expect(feed(saslReply(8, 0, `rspauth=${rspauth}`), next)).toBe(connect);
    expect(failures).toEqual([]);
    expect(socket.written).toHaveLength(2);
  });
});
