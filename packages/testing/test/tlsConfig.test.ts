/** The pure parts of TLS test servers: zoo.cfg lines, the class path, the option. */
import { delimiter } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withTlsJars } from '../src/tls/nettyJars.js';
import { serverTlsConfig } from '../src/tls/serverTlsConfig.js';
import { parseTestingServerOptions } from '../src/options.js';

describe('serverTlsConfig', () => {
  it('adds a TLS client port on loopback, Netty, PEM stores, client certificates and x509 identities', () => {
    expect(serverTlsConfig({ securePort: 2281, keyStoreFile: '/d/server.pem', trustStoreFile: '/d/ca.pem', clientAuth: 'need' })).toEqual({
      secureClientPort: '2281',
      secureClientPortAddress: '127.0.0.1',
      serverCnxnFactory: 'org.apache.zookeeper.server.NettyServerCnxnFactory',
      'ssl.keyStore.location': '/d/server.pem',
      'ssl.keyStore.type': 'PEM',
      'ssl.trustStore.location': '/d/ca.pem',
      'ssl.trustStore.type': 'PEM',
      'ssl.clientAuth': 'need',
      'authProvider.x509': 'org.apache.zookeeper.server.auth.X509AuthenticationProvider',
    });
    expect(serverTlsConfig({ securePort: 1, keyStoreFile: 'k', trustStoreFile: 't', clientAuth: 'want' })['ssl.clientAuth']).toBe('want');
  });
});

describe('withTlsJars', () => {
  it("adds Netty's codec and resolver to Debian's class path, and leaves a binary release's alone", () => {
    const debian = { javaBin: 'java', classpath: '/usr/share/java/zookeeper.jar', source: '/usr/share/java' };
    const added = withTlsJars(debian).classpath.split(delimiter).slice(1);
    // Only jars that exist are added; on a machine with Debian's package these two are there.
    for (const jar of added) expect(jar).toMatch(/^\/usr\/share\/java\/netty-[a-z-]+\.jar$/);
    const release = { javaBin: 'java', classpath: '/opt/zk/lib/a.jar', source: 'ZOOKEEPER_HOME=/opt/zk' };
    expect(withTlsJars(release)).toEqual(release);
  });
});

describe('the tls option of test servers', () => {
  it.each([
    [undefined, false],
    [false, false],
    [true, { clientAuth: 'need' }],
    [{}, { clientAuth: 'need' }],
    [{ clientAuth: 'want' }, { clientAuth: 'want' }],
    [{ clientAuth: 'none' }, { clientAuth: 'none' }],
  ] as const)('%j resolves to %j', (input, resolved) => {
    expect(parseTestingServerOptions({ tls: input }, 'test').tls).toEqual(resolved);
  });

  it('refuses what it does not know', () => {
    const invalid = expect.objectContaining({ code: 'INVALID_ARGUMENT' });
    expect(() => parseTestingServerOptions({ tls: { clientAuth: 'maybe' } }, 'test')).toThrow(invalid);
    expect(() => parseTestingServerOptions({ tls: { port: 1 } }, 'test')).toThrow(invalid);
    expect(() => parseTestingServerOptions({ tls: 'yes' }, 'test')).toThrow(invalid);
  });
});
