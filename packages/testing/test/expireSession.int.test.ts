import { describe, expect, it } from 'vitest';
import { expireSession, fourLetterWord, testConnectString, uniqueRoot } from '../src/index.js';
import { RAW_CREATE_MODE } from '../src/rawClient.js';
import { connectRaw, rawCreate, rawExists, rawMkdirs } from './support.js';

const root = uniqueRoot('expire-session');

describe('expireSession', () => {
  it('really expires the session: its client is told "expired" and its ephemeral nodes are gone', async () => {
    const connect = testConnectString();
    const victim = await connectRaw(connect, 10_000);
    const observer = await connectRaw(connect);
    try {
      await rawMkdirs(observer, root);
      await rawCreate(victim, `${root}/eph`, RAW_CREATE_MODE.EPHEMERAL);
      expect(await rawExists(observer, `${root}/eph`)).toBe(true);
      const sid = victim.getSessionId();
      const toldExpired = new Promise<void>((resolve) => victim.on('expired', resolve));

      await expireSession(connect, { sessionId: sid, password: victim.getSessionPassword() });

      // Already gone on the server when expireSession returns: no waiting needed.
      expect(await rawExists(observer, `${root}/eph`)).toBe(false);
      const [host, port] = connect.split(',')[0]!.split(':');
      expect(await fourLetterWord(host!, Number(port), 'dump')).not.toContain(`0x${sid.toString('hex').replace(/^0+/, '')}`);
      await toldExpired;
    } finally {
      victim.close();
      observer.close();
    }
  });

  it('on a session that is already gone, returns at once', async () => {
    const connect = testConnectString();
    const client = await connectRaw(connect);
    const creds = { sessionId: client.getSessionId(), password: client.getSessionPassword() };
    await expireSession(connect, creds);
    const started = Date.now();
    await expireSession(connect, creds);
    expect(Date.now() - started).toBeLessThan(2_000);
    client.close();
  });
});
