/*
 * The session's `tls` option: what every connection of a TLS session is secured with
 * (docs/security.md). Its schema is private to `options.ts`: a schema exported from here would put
 * the validation library's types in our declarations.
 */

/** PEM text, or its bytes. */
export type Pem = string | Buffer;

/**
 * TLS for every connection of the session (reconnections and failover to other servers included),
 * to the servers' `secureClientPort`. The names and types are those of Node's `tls.connect`.
 */
export interface TlsOptions {
  /**
   * The CA certificate(s), PEM, that signed the servers' certificates. Default: Node's bundled
   * public CAs (rarely what a ZooKeeper ensemble uses).
   */
  ca?: Pem | Pem[] | undefined;
  /** Our client certificate (chain), PEM: the server's `x509` identity of the session is its subject DN, e.g. `CN=alice`. With `key`. */
  cert?: Pem | Pem[] | undefined;
  /** The private key of `cert`, PEM. With `cert`. */
  key?: Pem | Pem[] | undefined;
  /** Passphrase of an encrypted `key`. */
  passphrase?: string | undefined;
  /**
   * The name every server's certificate must carry (and the SNI sent). Default: the host of the
   * connect string; an IP address is then checked against the certificate's IP entries.
   */
  servername?: string | undefined;
  /**
   * `false` accepts any server certificate: the connection is encrypted but nobody is
   * authenticated, and anyone in the path can read and change it. For tests only. Default `true`.
   */
  rejectUnauthorized?: boolean | undefined;
}
