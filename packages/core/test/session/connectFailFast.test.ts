/** connect()'s fail-fast bookkeeping: distinct servers counted, not errors; the error it ends with. */
import { describe, expect, it } from 'vitest';
import { AuthFailedError, TlsHandshakeError } from '../../src/errors.js';
import { ConnectFailFast } from '../../src/session/connectFailFast.js';

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
});
