/**
 * SASL DIGEST-MD5 on a test server: the JAAS file with its users and the JVM settings that turn it
 * on (docs/security.md describes the same setup for real servers).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The `sasl` option of `TestingServer.start` and `TestingCluster.start` (its schema is in options.ts, private). */
export interface TestingSaslOptions {
  /**
   * User name → password, written into the JAAS `Server` section as `user_<name>="<password>"`.
   * Names are letters, digits and `_`; passwords may not hold `"`, `\` or line breaks (the JAAS
   * file quotes them). At least one user.
   */
  users: Record<string, string>;
  /**
   * Refuse every request of a connection that has not authenticated with SASL (ZooKeeper's
   * `zookeeper.enforce.auth.enabled` with `zookeeper.enforce.auth.schemes=sasl`): the server
   * closes it with SESSION_CLOSED_REQUIRE_SASL_AUTH. Default false: anyone may connect, and ACLs
   * alone protect nodes.
   */
  requireClientAuth?: boolean | undefined;
}

/** {@link TestingSaslOptions} with defaults applied. */
export interface ResolvedSaslOptions {
  users: Record<string, string>;
  requireClientAuth: boolean;
}

/** The login module of ZooKeeper's server that checks DIGEST-MD5 passwords against its options. */
const DIGEST_LOGIN_MODULE = 'org.apache.zookeeper.server.auth.DigestLoginModule';
/** Makes `sasl` a valid ACL scheme (without it, setting a `sasl:` ACL fails with INVALID_ACL). */
const SASL_AUTH_PROVIDER = 'org.apache.zookeeper.server.auth.SASLAuthenticationProvider';

/**
 * Writes `jaas.conf` into `dir` and returns the JVM system properties that enable SASL with it.
 * The provider key is `zookeeper.authProvider.sasl`: the server loads every
 * `zookeeper.authProvider.*` property, and this name leaves `.1`, `.2`... to the caller's own.
 */
export function saslServerProperties(dir: string, sasl: ResolvedSaslOptions): Record<string, string> {
  const file = join(dir, 'jaas.conf');
  const users = Object.entries(sasl.users).map(([name, password]) => `  user_${name}="${password}"`);
  writeFileSync(file, `Server {\n  ${DIGEST_LOGIN_MODULE} required\n${users.join('\n')};\n};\n`);
  return {
    'java.security.auth.login.config': file,
    'zookeeper.authProvider.sasl': SASL_AUTH_PROVIDER,
    ...(sasl.requireClientAuth ? { 'zookeeper.enforce.auth.enabled': 'true', 'zookeeper.enforce.auth.schemes': 'sasl' } : {}),
  };
}
