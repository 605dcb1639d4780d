import { describe, expect, it } from 'vitest';
import { expireSession, fourLetterWord, pollUntil, testConnectString, uniqueRoot } from '../src/index.js';
import { RAW_CREATE_MODE } from '../src/rawClient.js';
import { connectRaw, rawCreate, rawExists, rawMkdirs } from './support.js';
import { expectSoonerThan } from '../../core/test/support/timeBound.js';

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
      // A closing session is refused at once but leaves the tracker a moment later, and the server
      // tells nobody when: ask until it has. Only the tracker's part of the dump counts: the
      // victim's own connection can stay listed under "Connections" until its next ping (on
      // closeSession the server closes the connection it maps to the session, the attacher's).
      const [host, port] = connect.split(',')[0]!.split(':');
      const id = `0x${sid.toString('hex').replace(/^0+/, '')}`;
      let dump = '';
      const tracked = async () => {
        dump = await fourLetterWord(host!, Number(port), 'dump');
        return dump.split('ephemeral nodes dump')[0]!.includes(id);
      };
      await pollUntil(async () => !(await tracked()), 5000, 'the session to leave the tracker').catch((err: unknown) => {
        throw new Error(`${String(err)}\n${dump}`);
      });
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
    expectSoonerThan('expiring a session already gone', Date.now() - started, 2_000);
    client.close();
  });
});
