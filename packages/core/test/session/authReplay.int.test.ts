import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { ZkSession } from '../../src/session/index.js';
import { FaultProxy } from '../../../testing/src/FaultProxy.js';
import { nextEvent, sharedServer, uniqueRoot } from './support.js';

const root = uniqueRoot('auth-replay');
const digest = createHash('sha1').update('alice:secret').digest('base64');
const ALICE_ONLY = [{ perms: 31, scheme: 'digest', id: `alice:${digest}` }];

describe('credentials after a reconnection', () => {
  it('a request made while disconnected is sent after the credentials', async () => {
    const server = sharedServer();
    const proxy = await FaultProxy.start({ targetPort: server.port, targetHost: server.host });
    const a = await ZkSession.connect({ connectString: proxy.connectString, sessionTimeoutMs: 6000, auth: [{ scheme: 'digest', credentials: 'alice:secret' }], acl: ALICE_ONLY });
    try {
      await a.mkdirp(root);
      await a.create(`${root}/secret`, Buffer.from('s'));
      const suspended = nextEvent(a, 'suspended');
      proxy.refuseConnections(true);
      proxy.dropConnections();
      await suspended;
      const reading = a.getData(`${root}/secret`).then((r) => r.data.toString(), (e: unknown) => e);
      const creating = a.create(`${root}/made-while-down`, null, { acl: [{ perms: 31, scheme: 'auth', id: '' }] }).then((r) => r.path, (e: unknown) => e);
      const reconnected = nextEvent(a, 'reconnected');
      proxy.refuseConnections(false);
      await reconnected;
      expect(await reading).toBe('s');
      expect(await creating).toBe(`${root}/made-while-down`);
    } finally {
      await a.close();
      await proxy.close();
    }
  });
});
