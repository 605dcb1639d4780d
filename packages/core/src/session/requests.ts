/**
 * The bodies of the requests a {@link ZkSession} sends and the decoding of their replies, as pure
 * functions: what goes on the wire for each operation, apart from the session's state, its pending
 * calls and its watches (docs/architecture.md, "The session"). Each operation's function returns
 * its whole request: opcode, body and the decoder of its reply; the three reads (which may set a
 * watch, registered by the session's generation) return the body, their decoders stand apart.
 * Paths arrive without the chroot and leave with it; created paths come back without it.
 */
import { InvalidArgumentError, type ZkRecipesError } from '../errors.js';
import { ReplyCode, fromZkCode } from './errorMapping.js';
import { OwnRequest, RequestBody } from './ownRequest.js';
import {
  CREATE_FLAGS,
  JuteWriter,
  OP,
  decodeMulti,
  encodeMulti,
  withChroot,
  withoutChroot,
  type JuteReader,
  type MultiOpWire,
  type ReplyHeader,
} from './frames.js';
import type { AclEntry, CreateMode, CreateResult, Stat, TransactionOp, TransactionResult } from './types.js';

/** Code.NONODE. */
const ZK_NO_NODE = -101;
/** Code.NOWATCHER. */
const ZK_NO_WATCHER = -121;

/** RemoveWatchesRequest types (Watcher.WatcherType in ZooKeeper: Children 1, Data 2). */
export const WATCHER_TYPES = { child: 1, data: 2 } as const;

/** A writer for one request's body (room left in front for the prefix the wire adds). */
function writer(): JuteWriter {
  return RequestBody.writer();
}

/** @throws InvalidArgumentError unless `path` is an absolute znode path */
export function assertPath(op: string, path: unknown): asserts path is string {
  if (typeof path !== 'string' || !path.startsWith('/') || (path.length > 1 && path.endsWith('/')) || path.includes('\0')) {
    throw new InvalidArgumentError(`${op}: invalid znode path ${JSON.stringify(path)}`, { op });
  }
}

/** @throws InvalidArgumentError unless `version` is -1 (any) or a version number */
export function assertVersion(op: string, version: unknown): asserts version is number {
  if (typeof version !== 'number' || !Number.isInteger(version) || version < -1 || version > 0x7fffffff) {
    throw new InvalidArgumentError(`${op}: version must be an integer >= -1 (got ${String(version)})`, { op });
  }
}

/** CREATE2 (or CREATE_CONTAINER for mode `container`: the server deletes it once its last child goes). */
export function createRequest(chroot: string | undefined, path: string, data: Uint8Array | null | undefined, acl: readonly AclEntry[], mode: CreateMode): OwnRequest {
  const flags = CREATE_FLAGS[mode];
  if (flags === undefined) throw new InvalidArgumentError(`create: unknown mode ${String(mode)}`, { op: 'create', path });
  const w = writer().ustring(withChroot(chroot, path)).buffer(data ?? null).acl(acl).int(flags);
  return new OwnRequest(RequestBody.of(mode === 'container' ? OP.createContainer : OP.create2, w), chroot === undefined ? decodeCreatedNoChroot : (r) => decodeCreated(r, chroot));
}

/** The reply to {@link createRequest}: the node's path (with its sequence) and stat. */
export function decodeCreated(r: JuteReader, chroot: string | undefined): CreateResult {
  return { path: withoutChroot(chroot, r.ustring() ?? ''), stat: r.stat() };
}

/** {@link decodeCreated} without a chroot: one decoder for every create, no closure each. */
function decodeCreatedNoChroot(r: JuteReader): CreateResult {
  return decodeCreated(r, undefined);
}

/** GET_CHILDREN2, GET_DATA or EXISTS: a path and whether to set a watch. */
export function readRequest(type: typeof OP.getChildren2 | typeof OP.getData | typeof OP.exists, chroot: string | undefined, path: string, watch: boolean): RequestBody {
  return RequestBody.of(type, writer().ustring(withChroot(chroot, path)).bool(watch));
}

/** The reply to a GET_CHILDREN2: the names (unsorted, as the server keeps them) and the stat. */
export function decodeChildren(r: JuteReader): { children: string[]; stat: Stat } {
  const n = r.int();
  const children: string[] = [];
  for (let i = 0; i < n; i++) children.push(r.ustring() ?? '');
  return { children, stat: r.stat() };
}

/**
 * The reply to an EXISTS (decoded on error replies too): the stat, or null for a missing node,
 * which is an answer here, not an error. Any other error code is the call's error.
 */
export function decodeExists(r: JuteReader, header: ReplyHeader): Stat | null | ReplyCode {
  if (header.err === ZK_NO_NODE) return null;
  if (header.err !== 0) return new ReplyCode(header.err);
  return r.stat();
}

/**
 * The reply to a GET_CHILDREN2 sent by `getChildrenIfExists` (decoded on error replies too): the
 * listing, or null for a missing node, which is an answer there, not an error.
 */
export function decodeChildrenIfExists(r: JuteReader, header: ReplyHeader): { children: string[]; stat: Stat } | null | ReplyCode {
  if (header.err === ZK_NO_NODE) return null;
  if (header.err !== 0) return new ReplyCode(header.err);
  return decodeChildren(r);
}

/** The reply to a GET_DATA sent by `getDataIfExists`: as {@link decodeChildrenIfExists}. */
export function decodeDataIfExists(r: JuteReader, header: ReplyHeader): { data: Buffer; stat: Stat } | null | ReplyCode {
  if (header.err === ZK_NO_NODE) return null;
  if (header.err !== 0) return new ReplyCode(header.err);
  return decodeData(r);
}

/** The reply to a SET_DATA or SET_ACL: the node's new stat. */
export function decodeStat(r: JuteReader): Stat {
  return r.stat();
}

/** The reply to a DELETE or REMOVE_WATCHES: nothing but its success. */
export function decodeNothing(): undefined {
  return undefined;
}

/** The reply to a GET_DATA. */
export function decodeData(r: JuteReader): { data: Buffer; stat: Stat } {
  const data = r.buffer();
  return { data, stat: r.stat() };
}

/** DELETE of `version` (-1: any). */
export function deleteRequest(chroot: string | undefined, path: string, version: number): OwnRequest {
  assertVersion('delete', version);
  return new OwnRequest(RequestBody.of(OP.delete, writer().ustring(withChroot(chroot, path)).int(version)), decodeNothing);
}

/** SET_DATA at `version` (-1: any); the reply is the new stat. */
export function setDataRequest(chroot: string | undefined, path: string, data: Uint8Array, version: number): OwnRequest {
  assertVersion('setData', version);
  return new OwnRequest(RequestBody.of(OP.setData, writer().ustring(withChroot(chroot, path)).buffer(data).int(version)), decodeStat);
}

/** GET_ACL: the node's ACL and stat. */
export function getAclRequest(chroot: string | undefined, path: string): OwnRequest {
  return new OwnRequest(RequestBody.of(OP.getACL, writer().ustring(withChroot(chroot, path))), decodeAcl);
}

/** The reply to {@link getAclRequest}. */
export function decodeAcl(r: JuteReader): { acl: AclEntry[]; stat: Stat } {
  const acl = r.acl();
  return { acl, stat: r.stat() };
}

/** SET_ACL at ACL `version` (the stat's `aversion`; -1: any); the reply is the new stat. */
export function setAclRequest(chroot: string | undefined, path: string, acl: readonly AclEntry[], version: number): OwnRequest {
  assertVersion('setACL', version);
  if (!Array.isArray(acl) || acl.length === 0) throw new InvalidArgumentError('setACL: acl must be a non-empty array', { op: 'setACL', path });
  return new OwnRequest(RequestBody.of(OP.setACL, writer().ustring(withChroot(chroot, path)).acl(acl).int(version)), decodeStat);
}

/**
 * REMOVE_WATCHES of one class of watch on `path` (ZooKeeper 3.5+). NO_WATCHER (the watch fired
 * meanwhile, or was never set) is an answer, not an error: what was asked for is done.
 */
export function removeWatchesRequest(chroot: string | undefined, path: string, watchClass: keyof typeof WATCHER_TYPES): OwnRequest {
  return new OwnRequest(RequestBody.of(OP.removeWatches, writer().ustring(withChroot(chroot, path)).int(WATCHER_TYPES[watchClass])), decodeWatchesRemoved, true);
}

/** The reply to {@link removeWatchesRequest} (decoded on error replies too). */
export function decodeWatchesRemoved(_r: JuteReader, header: ReplyHeader): undefined | ReplyCode {
  return header.err === 0 || header.err === ZK_NO_WATCHER ? undefined : new ReplyCode(header.err);
}

/**
 * MULTI: validates every op (path, version, mode) and encodes them. A create without an ACL gets
 * `defaultAcl`; delete and setData without a version mean any version (-1).
 * @throws InvalidArgumentError for an empty list or an invalid op
 */
export function transactionRequest(ops: TransactionOp[], defaultAcl: readonly AclEntry[], chroot: string | undefined): OwnRequest {
  if (!Array.isArray(ops) || ops.length === 0) {
    throw new InvalidArgumentError('transaction: ops must be a non-empty array', { op: 'transaction' });
  }
  const wire = ops.map((op): MultiOpWire => {
    assertPath(`transaction.${op.type}`, op.path);
    switch (op.type) {
      case 'create': {
        const flags = CREATE_FLAGS[op.mode ?? 'persistent'];
        if (flags === undefined) throw new InvalidArgumentError(`transaction.create: unknown mode`, { op: 'transaction' });
        return { type: 'create', path: op.path, data: op.data ?? null, acl: op.acl ?? [...defaultAcl], flags };
      }
      case 'delete':
        assertVersion('transaction.delete', op.version ?? -1);
        return { type: 'delete', path: op.path, version: op.version ?? -1 };
      case 'setData':
        assertVersion('transaction.setData', op.version ?? -1);
        return { type: 'setData', path: op.path, data: op.data, version: op.version ?? -1 };
      case 'check':
        assertVersion('transaction.check', op.version);
        return { type: 'check', path: op.path, version: op.version };
      default:
        throw new InvalidArgumentError(`transaction: unknown op ${JSON.stringify(op)}`, { op: 'transaction' });
    }
  });
  const w = writer();
  encodeMulti(w, wire, chroot);
  // A failed multi still carries one result per op: its decoder sees error replies too.
  return new OwnRequest(RequestBody.of(OP.multi, w), (r, header) => decodeTransaction(r, header, ops, chroot), true);
}

/**
 * The reply to {@link transactionRequest} (success or failure: a failed multi still carries one
 * result per op): each op's result, or the error of the op that failed. ZooKeeper marks the ops
 * after the failing one RUNTIME_INCONSISTENCY (-2): the error names the cause, not those.
 */
export function decodeTransaction(r: JuteReader, header: ReplyHeader, ops: readonly TransactionOp[], chroot: string | undefined): TransactionResult[] | ZkRecipesError {
  const results = decodeMulti(r, chroot);
  const isError = (x: (typeof results)[number], skipInconsistent: boolean): boolean => x.type === 'error' && x.err !== 0 && !(skipInconsistent && x.err === -2);
  let failedAt = results.findIndex((x) => isError(x, true));
  if (failedAt === -1) failedAt = results.findIndex((x) => isError(x, false));
  if (failedAt !== -1) {
    const failed = results[failedAt] as { err: number };
    return fromZkCode(failed.err, 'transaction', ops[failedAt]?.path);
  }
  if (header.err !== 0) return fromZkCode(header.err, 'transaction', undefined);
  return results.map((x): TransactionResult => {
    switch (x.type) {
      case 'create':
        return { type: 'create', path: x.path };
      case 'setData':
        return { type: 'setData', stat: x.stat };
      case 'delete':
        return { type: 'delete' };
      default:
        return { type: 'check' };
    }
  });
}
