/** connect()'s fail-fast bookkeeping: distinct servers counted, not errors; the error it ends with. */
import { describe, expect, it } from 'vitest';
import { AuthFailedError, TlsHandshakeError } from '../../src/errors.js';
import type { AttemptState } from '../../src/session/connectAttempts.js';
import { ConnectFailFast } from '../../src/session/connectFailFast.js';

const socketError = (code: string, message = `connect ${code}`): Error => Object.assign(new Error(message), { code });
const refused = (): AttemptState => ({ phase: 'failed', error: socketError('ECONNREFUSED') });

const tlsFailure = (address: string): TlsHandshakeError => new TlsHandshakeError('untrusted-server-certificate', address, `TLS connection to ${address} failed`);

describe('ConnectFailFast', () => {
  it('one bad server failing again and again does not end the wait while another server may still answer', () => {
    const ff = new ConnectFailFast('a:1,b:2', 60_000);
    try {
      for (let i = 0; i < 5; i++) ff.serverFailed(tlsFailure('a:1'), 'a:1');
      expect(ff.signal.aborted).toBe(false);
      ff.serverFailed(tlsFailure('b:2'), 'b:2');
      expect(ff.signal.aborted).toBe(true);
      expect(ff.errorFor(new Error('aborted'))).toMatchObject({ code: 'TLS_HANDSHAKE', address: 'b:2' });
    } finally {
      ff.dispose();
    }
  });

  it('counts a server listed twice once', () => {
    const ff = new ConnectFailFast('a:1,a:1', 60_000);
    ff.serverFailed(new Error('garbage'), 'a:1');
    expect(ff.signal.aborted).toBe(true);
    expect(ff.errorFor(new Error('aborted'))).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/not ZooKeeper's protocol/) });
    ff.dispose();
  });

  it("a server that does not speak ZooKeeper: INVALID_ARGUMENT, its one issue on connectString with the decoder's error (docs/errors.md)", () => {
    const ff = new ConnectFailFast('a:1', 60_000);
    ff.serverFailed(new Error('garbage length 1213486160'), 'a:1');
    const err = ff.errorFor(new Error('aborted'));
    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', op: 'connect' });
    expect((err as Error).cause).toEqual([{ path: ['connectString'], message: "not ZooKeeper's protocol: garbage length 1213486160" }]);
    ff.dispose();
  });

  it('refused credentials end the wait at once and win over everything else', () => {
    const ff = new ConnectFailFast('a:1,b:2,c:3', 60_000);
    ff.serverFailed(tlsFailure('a:1'), 'a:1');
    const refused = new AuthFailedError('digest', 'orders', 'refused', { zkCode: -115 });
    ff.authFailed(refused);
    expect(ff.signal.aborted).toBe(true);
    expect(ff.errorFor(new Error('aborted'))).toBe(refused);
    ff.dispose();
  });

  it('the timeout: CONNECTION_LOSS naming the connect string and the time; before it, the error as it came', async () => {
    const ff = new ConnectFailFast('a:1', 20);
    const other = new Error('closed');
    expect(ff.errorFor(other)).toBe(other);
    await expect(ff.guard(new Promise(() => undefined))).rejects.toThrow('aborted');
    expect(ff.errorFor(new Error('aborted'))).toMatchObject({ code: 'CONNECTION_LOSS', zkCode: -4, message: 'could not connect to a:1 within 20 ms' });
    ff.dispose();
  });

  it('every distinct server unreachable: ends the wait at once, CONNECTION_LOSS with the socket error as cause and each server named', () => {
    const ff = new ConnectFailFast('a:1,b:2,a:1', 60_000);
    try {
      ff.attempted('a:1', { phase: 'connecting' });
      ff.attempted('a:1', refused());
      ff.attempted('a:1', refused());
      expect(ff.signal.aborted).toBe(false);
      const notFound = socketError('ENOTFOUND', 'getaddrinfo ENOTFOUND b');
      ff.attempted('b:2', { phase: 'failed', error: notFound });
      expect(ff.signal.aborted).toBe(true);
      expect(ff.errorFor(new Error('aborted'))).toMatchObject({
        code: 'CONNECTION_LOSS',
        zkCode: -4,
        op: 'connect',
        cause: notFound,
        message: 'could not connect to a:1,b:2,a:1: a:1 refused the connection (ECONNREFUSED: nothing listens on that port); b:2: the host name does not resolve (ENOTFOUND)',
      });
    } finally {
      ff.dispose();
    }
  });

  it('judges each server by its latest connection: one that accepted since it refused keeps the wait going; a new connection alone changes nothing', () => {
    const ff = new ConnectFailFast('a:1,b:2', 60_000);
    try {
      ff.attempted('a:1', refused());
      ff.attempted('b:2', { phase: 'accepted' });
      ff.attempted('a:1', { phase: 'connecting' });
      ff.attempted('a:1', refused());
      expect(ff.signal.aborted).toBe(false);
      ff.attempted('b:2', { phase: 'connecting' });
      ff.attempted('b:2', refused());
      expect(ff.signal.aborted).toBe(true);
    } finally {
      ff.dispose();
    }
  });

  it('passing failures (EAI_AGAIN, a reset) do not end the wait; at the timeout the last one is the cause, and each server is named', async () => {
    const ff = new ConnectFailFast('a:1,b:2,c:3', 20);
    const again = socketError('EAI_AGAIN', 'getaddrinfo EAI_AGAIN a');
    ff.attempted('a:1', { phase: 'failed', error: again });
    ff.attempted('b:2', { phase: 'accepted' });
    expect(ff.signal.aborted).toBe(false);
    await expect(ff.guard(new Promise(() => undefined))).rejects.toThrow('aborted');
    expect(ff.errorFor(new Error('aborted'))).toMatchObject({
      code: 'CONNECTION_LOSS',
      cause: again,
      message:
        'could not connect to a:1,b:2,c:3 within 20 ms: a:1: getaddrinfo EAI_AGAIN a; b:2 accepted the connection but never answered the ZooKeeper handshake; c:3 not tried in that time',
    });
    ff.dispose();
  });

  it('the timeout after a server closed the connection unanswered, or never accepted it: said so, no cause', async () => {
    const ff = new ConnectFailFast('a:1,b:2', 20);
    ff.attempted('a:1', { phase: 'closed' });
    ff.attempted('b:2', { phase: 'connecting' });
    await expect(ff.guard(new Promise(() => undefined))).rejects.toThrow('aborted');
    const err = ff.errorFor(new Error('aborted')) as Error;
    expect(err.message).toMatch(/^could not connect to a:1,b:2 within 20 ms: a:1 closed the connection without answering .*; b:2 did not accept the connection$/);
    expect(err.cause).toBeUndefined();
    ff.dispose();
  });
});
