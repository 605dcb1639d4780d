import type { AclEntry } from './session/types.js';

/**
 * Every failure zk-recipes reports is a {@link ZkRecipesError} with a stable `code`, so callers can
 * branch on `err.code` without parsing messages. The original failure, when there is one, is `cause`.
 */
export type ErrorCode =
  | 'INVALID_ARGUMENT'
  | 'LOCK_TIMEOUT'
  | 'ABORTED'
  | 'NOT_OWNER'
  | 'SESSION_LOST'
  | 'SESSION_CLOSED'
  | 'NODE_DELETED'
  | 'CONNECTION_LOSS'
  | 'OPERATION_TIMEOUT'
  | 'NO_NODE'
  | 'NODE_EXISTS'
  | 'BAD_VERSION'
  | 'NOT_EMPTY'
  | 'NO_CHILDREN_FOR_EPHEMERALS'
  | 'NO_AUTH'
  | 'AUTH_FAILED'
  | 'ZOOKEEPER_ERROR'
  | 'UPGRADE_NOT_SUPPORTED'
  | 'INCONSISTENT_MAX_LEASES'
  | 'INSECURE_ACL'
  | 'RELEASED'
  | 'MULTI_RELEASE_FAILED'
  | 'RELEASE_FAILED'
  | 'TLS_HANDSHAKE'
  | 'RETRIES_EXHAUSTED'
  | 'LEADERSHIP_TIMEOUT'
  | 'ELECTION_CLOSED';

/** What an error carries beside its code and message. */
export interface ZkRecipesErrorOptions {
  /** The failure that caused this one (kept as the error's `cause`). */
  cause?: unknown;
  /** The ZooKeeper operation that failed, e.g. `create`. */
  op?: string;
  /** The znode path involved, if any. */
  path?: string;
}

/** Base class of every error thrown by zk-recipes. */
export class ZkRecipesError extends Error {
  /** The stable code to branch on (docs/errors.md). */
  readonly code: ErrorCode;
  /** The ZooKeeper operation that failed, e.g. `create`, when one did. */
  readonly op: string | undefined;
  /** The znode path involved, if any. */
  readonly path: string | undefined;

  /** Builds an error with its code; `options.cause` becomes the standard `cause`. */

  constructor(code: ErrorCode, message: string, options: ZkRecipesErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.op = options.op;
    this.path = options.path;
  }
}

/**
 * One problem with an argument: where (the property names and indexes from the argument's root,
 * e.g. `['retryPolicy', 'maxRetries']`; empty for the argument as a whole) and what. A plain
 * object, whichever check found it: no validation library's types are part of the API.
 */
export interface ValidationIssue {
  /** Where: the property names and indexes from the argument's root. */
  readonly path: readonly PropertyKey[];
  /** What is wrong. */
  readonly message: string;
}

/** What an {@link InvalidArgumentError} carries besides the base options (its `cause` is its issues). */
export interface InvalidArgumentErrorOptions extends Omit<ZkRecipesErrorOptions, 'cause'> {
  /** Every problem found; default: one, the message itself, about the argument as a whole. */
  issues?: readonly ValidationIssue[];
}

/**
 * A public option or argument is invalid: the message lists every problem, and `cause` is the same
 * problems as a plain array, one `{ path, message }` each (docs/errors.md, "INVALID_ARGUMENT").
 */
export class InvalidArgumentError extends ZkRecipesError {
  /** Every problem found, at least one: plain `{ path, message }` objects, frozen. */
  declare readonly cause: readonly ValidationIssue[];

  constructor(message: string, options: InvalidArgumentErrorOptions = {}) {
    const { issues = [{ path: [], message }], ...rest } = options;
    super('INVALID_ARGUMENT', message, { ...rest, cause: Object.freeze(issues.map(plainIssue)) });
  }
}

/** `issue` as a frozen plain `{ path, message }`, whatever else the checker that found it added. */
function plainIssue(issue: ValidationIssue): ValidationIssue {
  return Object.freeze({ path: Object.freeze([...issue.path]), message: issue.message });
}

/** The lock (or lease) was not obtained before the deadline. No node of ours is left behind. */
export class LockTimeoutError extends ZkRecipesError {
  constructor(message: string, options?: ZkRecipesErrorOptions) {
    super('LOCK_TIMEOUT', message, options);
  }
}

/** The caller's AbortSignal fired. `cause` is the signal's reason. */
export class AbortedError extends ZkRecipesError {
  constructor(message: string, options?: ZkRecipesErrorOptions) {
    super('ABORTED', message, options);
  }
}

/** A release came from a caller (async context) that does not hold the lock. */
export class NotOwnerError extends ZkRecipesError {
  constructor(message: string, options?: ZkRecipesErrorOptions) {
    super('NOT_OWNER', message, options);
  }
}

/**
 * The ZooKeeper session ended (expired on the server, or cut off for longer than the session
 * timeout). Ephemeral nodes of that session are, or will shortly be, gone.
 */
export class SessionLostError extends ZkRecipesError {
  constructor(message: string, options?: ZkRecipesErrorOptions) {
    super('SESSION_LOST', message, options);
  }
}

/** The session was closed by its owner; no further calls are possible. */
export class SessionClosedError extends ZkRecipesError {
  constructor(message: string, options?: ZkRecipesErrorOptions) {
    super('SESSION_CLOSED', message, options);
  }
}

/**
 * Our own lock node was deleted by someone else (an operator, an admin script, a `deleteall`)
 * while we waited or held: an acquisition rejects with it, a holder's `signal` aborts with it and
 * the recipe emits `lost`. `path` names the node. The lock is not ours, whatever else we saw.
 */
export class NodeDeletedError extends ZkRecipesError {
  constructor(message: string, options?: ZkRecipesErrorOptions) {
    super('NODE_DELETED', message, options);
  }
}

/**
 * The reason of a handle's `signal` once its holder called `release()` (docs/errors.md, "While you
 * hold"): from the call on the handle holds nothing, whether the delete of its node has been
 * answered yet or not. Never thrown: a reason, so that code watching the signal can tell a release
 * of its own from a loss.
 */
export class ReleasedError extends ZkRecipesError {
  constructor(message: string, options?: ZkRecipesErrorOptions) {
    super('RELEASED', message, options);
  }
}

/** Refused: the caller holds only the read lock and asked for the write lock (it would deadlock). */
export class UpgradeNotSupportedError extends ZkRecipesError {
  constructor(message: string, options?: ZkRecipesErrorOptions) {
    super('UPGRADE_NOT_SUPPORTED', message, options);
  }
}

/** A semaphore client's maxLeases disagrees with the one the semaphore path was created with. */
export class InconsistentMaxLeasesError extends ZkRecipesError {
  constructor(message: string, options?: ZkRecipesErrorOptions) {
    super('INCONSISTENT_MAX_LEASES', message, options);
  }
}

/**
 * A lock directory's ACL lets someone other than us create or delete its nodes (or change its ACL),
 * while this session's ACL is restrictive: anyone could take the lock away. `path` names the
 * directory, `acl` is the ACL found there. See docs/security.md, "ACLs".
 */
export class InsecureAclError extends ZkRecipesError {
  /** The ACL found on the directory. */
  readonly acl: readonly AclEntry[];
  constructor(message: string, acl: readonly AclEntry[], options?: ZkRecipesErrorOptions) {
    super('INSECURE_ACL', message, options);
    this.acl = acl;
  }
}

/**
 * A ZooKeeper operation failed. `code` maps the server's error (NO_NODE, NODE_EXISTS, BAD_VERSION,
 * ...); `zkCode` keeps the raw numeric code, including ones this library does not know.
 */
export class ZooKeeperError extends ZkRecipesError {
  /** The server's numeric error code, also the ones this library does not name. */
  readonly zkCode: number;
  constructor(code: ErrorCode, zkCode: number, message: string, options?: ZkRecipesErrorOptions) {
    super(code, message, options);
    this.zkCode = zkCode;
  }
}

/**
 * Authentication failed: the server refused the SASL or digest (`auth`) credentials, could not
 * prove it knows them (DIGEST-MD5's `rspauth`), or offers no SASL. `connect()` rejects with it at
 * once; on a reconnection the session emits it as `error` and the session ends (`lost`). The
 * message names the mechanism and the user, never the password. See docs/security.md.
 */
export class AuthFailedError extends ZkRecipesError {
  /** `DIGEST-MD5` (the `sasl` option) or `digest` (the `auth` option). */
  readonly mechanism: string;
  /** The user (for `digest`, every user of `auth`, comma-separated: the server does not say which it refused). */
  readonly username: string;
  /** The server's error code when it answered with one (-115 AUTH_FAILED, -124 SESSION_CLOSED_REQUIRE_SASL_AUTH). */
  readonly zkCode: number | undefined;
  constructor(mechanism: string, username: string, message: string, options: ZkRecipesErrorOptions & { zkCode?: number | undefined } = {}) {
    super('AUTH_FAILED', message, { op: 'connect', ...options });
    this.mechanism = mechanism;
    this.username = username;
    this.zkCode = options.zkCode;
  }
}

/**
 * Members of a multi-lock failed to release; each failure is in `errors`. From a `release()`,
 * `released` and `stillHeld` name the members' lock directories given back and kept (the handle's
 * `signal` aborts with this error: the multi-lock is no longer held as a whole).
 */
export class MultiReleaseError extends ZkRecipesError {
  /** Each member's failure, in release order. */
  readonly errors: readonly unknown[];
  /** Lock directories of the members this release gave back (empty for a failed acquisition's clean-up). */
  readonly released: readonly string[];
  /** Lock directories of the members still held: `release()` again gives them back. */
  readonly stillHeld: readonly string[];
  constructor(message: string, errors: readonly unknown[], members: { released?: readonly string[]; stillHeld?: readonly string[] } = {}) {
    super('MULTI_RELEASE_FAILED', message, { cause: errors[0] });
    this.errors = errors;
    this.released = members.released ?? [];
    this.stillHeld = members.stillHeld ?? [];
  }
}

/**
 * A release the server refused at the end of `withLock` or of an `await using` block: the lock is
 * still held, and `handle` is the way to release it (call `handle.release()` again once the cause
 * is fixed, or close the session). `error` is the release's failure (also `cause`). When `fn` threw
 * too, its error is `suppressed` and `fnFailed` is true: the shape of the standard `SuppressedError`
 * (which Node 20 lacks), so neither failure is lost. See docs/errors.md, "Releasing".
 */
export class ReleaseFailedError<H = unknown> extends ZkRecipesError {
  /** The handle still held: release it again. */
  readonly handle: H;
  /** Why the release failed (`NO_AUTH`, `MULTI_RELEASE_FAILED`...). */
  readonly error: unknown;
  /** What `fn` threw, when it did (`fnFailed`); `undefined` otherwise. */
  readonly suppressed: unknown;
  /** True when `fn` threw (its error is `suppressed`): it may have thrown `undefined`. */
  readonly fnFailed: boolean;
  constructor(message: string, handle: H, error: unknown, fn?: { thrown: unknown }) {
    super('RELEASE_FAILED', message, { cause: error, ...pathOf(error) });
    this.handle = handle;
    this.error = error;
    this.suppressed = fn?.thrown;
    this.fnFailed = fn !== undefined;
  }
}

const pathOf = (error: unknown): { path?: string } => (error instanceof ZkRecipesError && error.path !== undefined ? { path: error.path } : {});

/**
 * Why a TLS connection failed: the server's certificate is not trusted (`untrusted-server-certificate`),
 * has expired or is not valid yet (`expired-server-certificate`), or does not name the host
 * (`server-name-mismatch`); the server refused or required our client certificate
 * (`client-certificate-refused`); the port does not speak TLS (`not-a-tls-port`); a session
 * without `tls` reached a port that speaks only TLS (`tls-port`); no protocol version or cipher
 * both sides accept (`tls-error`). See docs/security.md.
 */
export type TlsFailureReason =
  | 'untrusted-server-certificate'
  | 'expired-server-certificate'
  | 'server-name-mismatch'
  | 'client-certificate-refused'
  | 'not-a-tls-port'
  | 'tls-port'
  | 'tls-error';

/**
 * A connection could not be secured, or a plaintext session reached a TLS-only port. `connect()`
 * rejects with it at once (trying again would fail the same way); on an established session it is
 * an `error` event and the client tries the next server. `cause` is Node's error when there is one.
 */
export class TlsHandshakeError extends ZkRecipesError {
  /** What went wrong, stable: branch on this. */
  readonly reason: TlsFailureReason;
  /** `host:port` of the server. */
  readonly address: string;
  /** Node's or OpenSSL's code of the failure (e.g. `SELF_SIGNED_CERT_IN_CHAIN`), when there is one. */
  readonly tlsCode: string | undefined;
  constructor(reason: TlsFailureReason, address: string, message: string, options: ZkRecipesErrorOptions & { tlsCode?: string | undefined } = {}) {
    super('TLS_HANDSHAKE', message, { op: 'connect', ...options });
    this.reason = reason;
    this.address = address;
    this.tlsCode = options.tlsCode;
  }
}

/** True when `err` is a zk-recipes error with the given code. */
export function isZkError(err: unknown, code?: ErrorCode): err is ZkRecipesError {
  return err instanceof ZkRecipesError && (code === undefined || err.code === code);
}

/** What a {@link RetriesExhaustedError} carries besides the base options. */
export interface RetriesExhaustedErrorOptions extends ZkRecipesErrorOptions {
  /** The policy that gave up, by its name (see `RetryPolicy.name`). */
  policy: string;
  /** How many attempts failed, the last one included. */
  attempts: number;
}

/**
 * The retry policy gave up: an operation (an acquisition, a release, a `runWithRetry` call) failed
 * `attempts` times with failures worth retrying (a lost connection, a lost session) and the
 * session's policy (or the loop's) said no more. `cause` is the last failure; `policy` names the
 * policy. See docs/architecture.md, "Retries".
 */
export class RetriesExhaustedError extends ZkRecipesError {
  /** The policy that gave up, by its name (e.g. `retryNTimes(n: 3, sleepMs: 100)`). */
  readonly policy: string;
  /** How many attempts failed, the last one included. */
  readonly attempts: number;
  constructor(message: string, options: RetriesExhaustedErrorOptions) {
    super('RETRIES_EXHAUSTED', message, options);
    this.policy = options.policy;
    this.attempts = options.attempts;
  }
}
