import { ZkSession, type AclEntry, type ZkSessionOptionsInput } from '@zk-recipes/core';
import { aclEntry, digestIdOf } from '@zk-recipes/testing';
import { afterAll, beforeAll } from 'vitest';

// This repository's own ACL test fixtures. They live outside src/ (and out of the package's
// `files`) so the published @zk-recipes/testing never exports made-up credentials.

/**
 * The cast of the ACL tests (docs/security.md, "ACLs"): an application and its operators, each
 * with digest credentials, and anonymous clients who may only read.
 */
export const APP_CREDENTIALS = 'app:secret';
export const OPS_CREDENTIALS = 'ops:secret';

/** The app's ACL as configured: everything for itself (`auth`) and the operators, reading for anyone. */
export const SECURE_ACL: AclEntry[] = [aclEntry(31, 'auth', ''), aclEntry(31, 'digest', digestIdOf(OPS_CREDENTIALS)), aclEntry(1, 'world', 'anyone')];

/** {@link SECURE_ACL} as the server stores it (`auth` expanded): what an operator sets to repair a node. */
export const SECURE_ACL_STORED: AclEntry[] = [
  aclEntry(31, 'digest', digestIdOf(APP_CREDENTIALS)),
  aclEntry(31, 'digest', digestIdOf(OPS_CREDENTIALS)),
  aclEntry(1, 'world', 'anyone'),
];

/** {@link SECURE_ACL_STORED} with READ and CREATE only for the app: its deletes are refused (NO_AUTH). */
export const NO_DELETE_ACL: AclEntry[] = [aclEntry(1 | 4, 'digest', digestIdOf(APP_CREDENTIALS)), ...SECURE_ACL_STORED.slice(1)];

/** One session per member of the cast, connected to one server. */
export interface AclCast {
  /** No credentials: what a stranger on the network can do. */
  readonly anonymous: ZkSession;
  /** The operators' credentials, no ACL of its own. */
  readonly ops: ZkSession;
  /** The app's credentials, creating nodes with {@link SECURE_ACL}. */
  readonly app: ZkSession;
  close(): Promise<void>;
}

/**
 * Connects the cast and creates `root` open and persistent (the tests' shared parents stay usable
 * by other tests).
 */
export async function connectAclCast(connectString: string, root: string): Promise<AclCast> {
  const sessions: ZkSession[] = [];
  const connect = async (options: Partial<ZkSessionOptionsInput> = {}): Promise<ZkSession> => {
    const session = await ZkSession.connect({ connectString, sessionTimeoutMs: 4000, ...options });
    sessions.push(session);
    return session;
  };
  const anonymous = await connect();
  const ops = await connect({ auth: [{ scheme: 'digest', credentials: OPS_CREDENTIALS }] });
  const app = await connect({ auth: [{ scheme: 'digest', credentials: APP_CREDENTIALS }], acl: SECURE_ACL });
  await anonymous.mkdirp(root, 'persistent');
  return { anonymous, ops, app, close: async () => void (await Promise.all(sessions.map((s) => s.close()))) };
}

/**
 * Connects the cast before the file's tests and closes it after them (vitest hooks). Its members
 * are read when a test runs: `const cast = useAclCast(root)`, then `cast.app` inside a test.
 */
export function useAclCast(root: string, connectString: () => string): Omit<AclCast, 'close'> {
  let cast: AclCast | undefined;
  beforeAll(async () => {
    cast = await connectAclCast(connectString(), root);
  });
  afterAll(() => cast?.close());
  const member = (name: 'anonymous' | 'ops' | 'app'): ZkSession => {
    if (cast === undefined) throw new Error(`useAclCast: ${name} read outside a test`);
    return cast[name];
  };
  return {
    get anonymous() {
      return member('anonymous');
    },
    get ops() {
      return member('ops');
    },
    get app() {
      return member('app');
    },
  };
}
