/**
 * Maps ZooKeeper's numeric error codes to our error classes. Unknown codes (e.g. -125
 * QUOTA_EXCEEDED, which node-zookeeper-client 1.1.3 does not know and throws on inside its socket
 * handler) become ZooKeeperError('ZOOKEEPER_ERROR') with the raw `zkCode` kept.
 */
import {
  SessionLostError,
  ZkRecipesError,
  ZooKeeperError,
  type ErrorCode,
} from '../errors.js';

/** Code.AUTHFAILED: the server refused credentials (an auth packet, or a SASL exchange). */
export const ZK_AUTH_FAILED = -115;
/** Code.SESSIONCLOSEDREQUIRESASLAUTH: a server enforcing SASL closed an unauthenticated session. */
export const ZK_SESSION_CLOSED_REQUIRE_SASL_AUTH = -124;

/** ZooKeeper's KeeperException.Code values we name. */
export const ZK_CODES: Readonly<
  Record<
    number,
    {
      /** The server's name for the code. */
      name: string;
      /** Our {@link ErrorCode} for it. */
      code: ErrorCode;
    }
  >
> = {
  [-1]: { name: 'SYSTEM_ERROR', code: 'ZOOKEEPER_ERROR' },
  [-2]: { name: 'RUNTIME_INCONSISTENCY', code: 'ZOOKEEPER_ERROR' },
  [-3]: { name: 'DATA_INCONSISTENCY', code: 'ZOOKEEPER_ERROR' },
  [-4]: { name: 'CONNECTION_LOSS', code: 'CONNECTION_LOSS' },
  [-5]: { name: 'MARSHALLING_ERROR', code: 'ZOOKEEPER_ERROR' },
  [-6]: { name: 'UNIMPLEMENTED', code: 'ZOOKEEPER_ERROR' },
  [-7]: { name: 'OPERATION_TIMEOUT', code: 'OPERATION_TIMEOUT' },
  [-8]: { name: 'BAD_ARGUMENTS', code: 'ZOOKEEPER_ERROR' },
  [-13]: { name: 'NEW_CONFIG_NO_QUORUM', code: 'ZOOKEEPER_ERROR' },
  [-14]: { name: 'RECONFIG_IN_PROGRESS', code: 'ZOOKEEPER_ERROR' },
  [-100]: { name: 'API_ERROR', code: 'ZOOKEEPER_ERROR' },
  [-101]: { name: 'NO_NODE', code: 'NO_NODE' },
  [-102]: { name: 'NO_AUTH', code: 'NO_AUTH' },
  [-103]: { name: 'BAD_VERSION', code: 'BAD_VERSION' },
  [-108]: { name: 'NO_CHILDREN_FOR_EPHEMERALS', code: 'NO_CHILDREN_FOR_EPHEMERALS' },
  [-110]: { name: 'NODE_EXISTS', code: 'NODE_EXISTS' },
  [-111]: { name: 'NOT_EMPTY', code: 'NOT_EMPTY' },
  [-112]: { name: 'SESSION_EXPIRED', code: 'SESSION_LOST' },
  [-113]: { name: 'INVALID_CALLBACK', code: 'ZOOKEEPER_ERROR' },
  [-114]: { name: 'INVALID_ACL', code: 'ZOOKEEPER_ERROR' },
  [ZK_AUTH_FAILED]: { name: 'AUTH_FAILED', code: 'AUTH_FAILED' },
  [-118]: { name: 'SESSION_MOVED', code: 'CONNECTION_LOSS' },
  [-119]: { name: 'NOT_READ_ONLY', code: 'ZOOKEEPER_ERROR' },
  [-120]: { name: 'EPHEMERAL_ON_LOCAL_SESSION', code: 'ZOOKEEPER_ERROR' },
  [-121]: { name: 'NO_WATCHER', code: 'ZOOKEEPER_ERROR' },
  [-122]: { name: 'REQUEST_TIMEOUT', code: 'OPERATION_TIMEOUT' },
  [-123]: { name: 'RECONFIG_DISABLED', code: 'ZOOKEEPER_ERROR' },
  [ZK_SESSION_CLOSED_REQUIRE_SASL_AUTH]: { name: 'SESSION_CLOSED_REQUIRE_SASL_AUTH', code: 'ZOOKEEPER_ERROR' },
  [-125]: { name: 'QUOTA_EXCEEDED', code: 'ZOOKEEPER_ERROR' },
  [-127]: { name: 'THROTTLED_OP', code: 'ZOOKEEPER_ERROR' },
};

/**
 * The error code of a reply, carried from our frame decoder to the call's callback. Not an `Error`
 * (no stack trace is captured): the session turns it into one of ours only when the call rejects,
 * and a reply that is an answer, not a failure (NO_NODE to an `exists` or an `...IfExists` read),
 * builds no error at all.
 */
export class ReplyCode {
  constructor(readonly zkCode: number) {}
}

/** Extracts a numeric ZooKeeper code from whatever the wire client handed us, if any. */
export function zkCodeOf(error: unknown): number | undefined {
  if (error instanceof ReplyCode) return error.zkCode;
  // node-zookeeper-client's Exception: numeric `code` and getCode().
  if (typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'number') {
    return (error as { code: number }).code;
  }
  return undefined;
}

/** Turns a failure of `op` on `path` into one of our errors. */
export function toZkError(error: unknown, op: string, path: string | undefined): ZkRecipesError {
  if (error instanceof ZkRecipesError) return error;
  // A reply's code: the error we build is the first one (nothing to keep as its cause).
  if (error instanceof ReplyCode) return fromZkCode(error.zkCode, op, path);
  const zkCode = zkCodeOf(error);
  if (zkCode === undefined) {
    return new ZooKeeperError('ZOOKEEPER_ERROR', 0, `${op}${path ? ` ${path}` : ''} failed: ${String(error)}`, {
      cause: error,
      op,
      ...(path === undefined ? {} : { path }),
    });
  }
  return fromZkCode(zkCode, op, path, error);
}

/** Builds our error for a raw ZooKeeper error code. */
export function fromZkCode(zkCode: number, op: string, path: string | undefined, cause?: unknown): ZkRecipesError {
  const known = ZK_CODES[zkCode];
  const name = known?.name ?? `UNKNOWN(${zkCode})`;
  const where = path ? ` ${path}` : '';
  const opts = { op, ...(path === undefined ? {} : { path }), ...(cause === undefined ? {} : { cause }) };
  if (known?.code === 'SESSION_LOST') {
    return new SessionLostError(`${op}${where}: ZooKeeper session expired`, opts);
  }
  return new ZooKeeperError(known?.code ?? 'ZOOKEEPER_ERROR', zkCode, `${op}${where} failed: ${name} [${zkCode}]`, opts);
}
