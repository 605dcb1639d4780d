/**
 * The `tls` option of `TestingServer.start` / `TestingCluster.start`, and what a TLS server
 * exposes to tests: where to connect and the certificates to connect with.
 */
import type { ClientAuth } from './serverTlsConfig.js';
import { testCertificates, type PemPair } from './testCertificates.js';

/**
 * `true`: serve TLS too, on a second client port, requiring client certificates signed by the test
 * CA; or `{ clientAuth }` to make them optional (`want`) or ignore them (`none`). Default: no TLS.
 */
export type TestingTlsOption =
  | boolean
  | {
      /** `need` (the default), `want` or `none`: whether the TLS port asks for client certificates. */
      clientAuth?: ClientAuth | undefined;
    };

/** {@link TestingTlsOption} resolved: `false`, or how client certificates are handled. */
export type ResolvedTlsOption = false | { clientAuth: ClientAuth };

/**
 * A TLS test server's (or ensemble's) secure side. Connect with
 * `ZkSession.connect({ connectString: tls.connectString, tls: { ca: tls.ca, ...tls.clients.alice } })`.
 * The certificates are made once per process (`openssl`) and shared by every TLS server of it.
 */
export interface TestingTls {
  /** `127.0.0.1:<secureClientPort>` of the server (of every member, for an ensemble). */
  connectString: string;
  /** The secure ports in it, in server (`myid`) order. */
  ports: number[];
  /** PEM of the CA that signed the servers' certificates (SAN IP:127.0.0.1, DNS:localhost) and the clients'. */
  ca: string;
  /**
   * Client certificates the servers trust; their `x509` identities are `CN=alice` and `CN=bob`
   * (ACL `{ scheme: 'x509', id: 'CN=alice', perms }`).
   */
  clients: {
    /** The client certificate `CN=alice`. */
    alice: PemPair;
    /** The client certificate `CN=bob`. */
    bob: PemPair;
  };
  /** A CA the servers do not trust (`ca`: trusting it instead fails the server's certificate) and a client certificate `CN=mallory` it signed (the servers refuse it). */
  untrusted: PemPair & {
    /** PEM of the untrusted CA. */
    ca: string;
  };
  /** The servers' `ssl.clientAuth`. */
  clientAuth: ClientAuth;
}

/** The {@link TestingTls} of servers listening on `securePorts` of 127.0.0.1. */
export function testingTls(securePorts: readonly number[], clientAuth: ClientAuth): TestingTls {
  const certs = testCertificates();
  return {
    connectString: securePorts.map((port) => `127.0.0.1:${port}`).join(','),
    ports: [...securePorts],
    ca: certs.ca,
    clients: certs.clients,
    untrusted: certs.untrusted,
    clientAuth,
  };
}
