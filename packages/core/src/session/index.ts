/** Public surface of the session layer. */
export { ZkSession } from './ZkSession.js';
export {
  ZK_SESSION_DEFAULTS,
  OPEN_ACL_UNSAFE,
  parseZkSessionOptions,
  type DigestAuth,
  type ZkSessionOptions,
  type ZkSessionOptionsInput,
} from './options.js';
export type { Pem, TlsOptions } from './tlsOptions.js';
export type { SaslOptions } from './sasl/options.js';
export { ZK_CODES } from './errorMapping.js';
export { digestId } from './identities.js';
export { WIRE_CLIENT_VERSION } from './wire.js';
export type * from './types.js';
