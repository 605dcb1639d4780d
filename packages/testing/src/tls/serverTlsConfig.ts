/*
 * The zoo.cfg lines that make a test server serve TLS on a second client port, with client
 * certificates checked and their subjects as `x509` identities (docs/security.md). Pure: the
 * files are named by the caller.
 */

/** ZooKeeper's `ssl.clientAuth`: whether the server requires, accepts or ignores client certificates. */
export type ClientAuth = 'need' | 'want' | 'none';

export interface ServerTlsInput {
  /** The TLS client port (`secureClientPort`), on 127.0.0.1. */
  securePort: number;
  /** PEM file with the server's private key and certificate chain. */
  keyStoreFile: string;
  /** PEM file with the CA certificate(s) clients' certificates must chain to. */
  trustStoreFile: string;
  clientAuth: ClientAuth;
}

/** ZooKeeper's TLS listener is Netty's: the default NIO factory serves no TLS. */
export const NETTY_CNXN_FACTORY = 'org.apache.zookeeper.server.NettyServerCnxnFactory';
/** Authenticates a TLS client as `x509:<subject DN of its certificate>`. */
export const X509_AUTH_PROVIDER = 'org.apache.zookeeper.server.auth.X509AuthenticationProvider';

/** zoo.cfg entries for TLS beside the plaintext `clientPort` (which stays, for four-letter words). */
export function serverTlsConfig(input: ServerTlsInput): Record<string, string> {
  return {
    secureClientPort: String(input.securePort),
    secureClientPortAddress: '127.0.0.1',
    serverCnxnFactory: NETTY_CNXN_FACTORY,
    'ssl.keyStore.location': input.keyStoreFile,
    'ssl.keyStore.type': 'PEM',
    'ssl.trustStore.location': input.trustStoreFile,
    'ssl.trustStore.type': 'PEM',
    'ssl.clientAuth': input.clientAuth,
    'authProvider.x509': X509_AUTH_PROVIDER,
  };
}
