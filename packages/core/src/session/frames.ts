/**
 * ZooKeeper wire framing and the jute codec for the requests we send and the replies we decode
 * ourselves. We encode every request (so versions, opcodes and flags are exactly what we mean:
 * CREATE2 = 15, CREATE_CONTAINER = 19, multi versions where 0 means 0) and decode every reply to
 * our own requests (so unknown error codes and extended opcodes never reach the wire client's
 * decoder).
 */
import type { AclEntry, Stat } from './types.js';

/** ZooKeeper opcodes (ZooDefs.OpCode). */
export const OP = {
  notification: 0,
  create: 1,
  delete: 2,
  exists: 3,
  getData: 4,
  setData: 5,
  getACL: 6,
  setACL: 7,
  getChildren2: 12,
  check: 13,
  multi: 14,
  create2: 15,
  removeWatches: 18,
  createContainer: 19,
  ping: 11,
  auth: 100,
  setWatches: 101,
  closeSession: -11,
  error: -1,
} as const;

/** Special xids the server uses. */
export const XID = { notification: -1, ping: -2, auth: -4, setWatches: -8 } as const;

/** CreateMode flags on the wire. */
export const CREATE_FLAGS = {
  persistent: 0,
  ephemeral: 1,
  persistent_sequential: 2,
  ephemeral_sequential: 3,
  container: 4,
} as const;

/**
 * Writes jute fields into one buffer (grown by doubling), after `reserve` bytes left for what
 * goes in front: the length prefix of {@link frame}, or a request's whole prefix (length, xid,
 * opcode: `OwnRequest`). One allocation per request on the common path, no copy when it is sent.
 */
export class JuteWriter {
  private buf: Buffer;
  private length: number;

  constructor(
    /** Bytes left free at the start (4: the length prefix that {@link frame} writes). */
    private readonly reserve = 4,
    capacity = 128,
  ) {
    this.buf = Buffer.allocUnsafe(Math.max(capacity, reserve));
    this.length = reserve;
  }

  private ensure(n: number): void {
    const needed = this.length + n;
    if (needed <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(needed, this.buf.length * 2));
    this.buf.copy(grown, 0, 0, this.length);
    this.buf = grown;
  }

  int(v: number): this {
    this.ensure(4);
    this.buf.writeInt32BE(v, this.length);
    this.length += 4;
    return this;
  }
  bool(v: boolean): this {
    this.ensure(1);
    this.buf[this.length++] = v ? 1 : 0;
    return this;
  }
  ustring(v: string | null): this {
    if (v === null) return this.int(-1);
    // One pass: room for the longest encoding (3 bytes per UTF-16 unit), then the length written.
    const at = this.length;
    this.ensure(4 + 3 * v.length);
    const n = this.buf.write(v, at + 4, 'utf8');
    this.buf.writeInt32BE(n, at);
    this.length = at + 4 + n;
    return this;
  }
  buffer(v: Uint8Array | null | undefined): this {
    if (v === null || v === undefined) return this.int(-1);
    this.int(v.length);
    this.ensure(v.length);
    this.buf.set(v, this.length);
    this.length += v.length;
    return this;
  }
  acl(entries: readonly AclEntry[]): this {
    this.int(entries.length);
    for (const e of entries) this.int(e.perms).ustring(e.scheme).ustring(e.id);
    return this;
  }
  /** The body, prefixed with its 4-byte length (one frame); for a writer made with the default `reserve` of 4. */
  frame(): Buffer {
    const out = this.buf.subarray(0, this.length);
    out.writeInt32BE(this.length - 4, 0);
    return out;
  }

  /** Everything written, the reserved bytes in front included (left as they are). */
  written(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

export class JuteReader {
  constructor(
    private readonly buf: Buffer,
    public offset = 0,
  ) {}
  private need(n: number): void {
    if (this.offset + n > this.buf.length) throw new RangeError(`jute: reply truncated at ${this.offset}+${n}`);
  }
  int(): number {
    this.need(4);
    const v = this.buf.readInt32BE(this.offset);
    this.offset += 4;
    return v;
  }
  long(): bigint {
    this.need(8);
    const v = this.buf.readBigInt64BE(this.offset);
    this.offset += 8;
    return v;
  }
  bool(): boolean {
    this.need(1);
    return this.buf[this.offset++] !== 0;
  }
  ustring(): string | null {
    const n = this.int();
    if (n < 0) return null;
    this.need(n);
    const s = this.buf.toString('utf8', this.offset, this.offset + n);
    this.offset += n;
    return s;
  }
  buffer(): Buffer {
    const n = this.int();
    if (n < 0) return Buffer.alloc(0);
    this.need(n);
    const b = Buffer.from(this.buf.subarray(this.offset, this.offset + n));
    this.offset += n;
    return b;
  }
  acl(): AclEntry[] {
    const n = this.int();
    const entries: AclEntry[] = [];
    for (let i = 0; i < n; i++) {
      const perms = this.int();
      entries.push({ perms, scheme: this.ustring() ?? '', id: this.ustring() ?? '' });
    }
    return entries;
  }
  stat(): Stat {
    return {
      czxid: this.long(),
      mzxid: this.long(),
      ctime: this.long(),
      mtime: this.long(),
      version: this.int(),
      cversion: this.int(),
      aversion: this.int(),
      ephemeralOwner: this.long(),
      dataLength: this.int(),
      numChildren: this.int(),
      pzxid: this.long(),
    };
  }
}

export interface ReplyHeader {
  xid: number;
  /** The 8 bytes of the zxid, a view into the frame (frames are never written to). */
  zxid: Buffer;
  err: number;
}

/** Reads the ReplyHeader at the start of a frame body (after the length prefix). */
export function readReplyHeader(frame: Buffer): ReplyHeader {
  if (frame.length < 4 + 16) throw new RangeError('jute: reply frame shorter than its header');
  return {
    xid: frame.readInt32BE(4),
    zxid: frame.subarray(8, 16),
    err: frame.readInt32BE(16),
  };
}

/** Whether the zxid of a reply header (`ReplyHeader.zxid`) is positive, without making a bigint. */
export function isPositiveZxid(zxid: Buffer): boolean {
  const high = zxid.readInt32BE(0);
  return high > 0 || (high === 0 && zxid.readUInt32BE(4) > 0);
}

/**
 * Splits a byte stream into complete length-prefixed frames. One instance per socket: a partial
 * frame left by a dropped connection dies with its splitter instead of poisoning the next one.
 */
export class FrameSplitter {
  private pending: Buffer = Buffer.alloc(0);
  /** Frames larger than this are a protocol error (ZooKeeper's jute.maxbuffer default is ~1 MiB; be generous). */
  static readonly MAX_FRAME = 64 * 1024 * 1024;

  /** Feeds bytes; returns every complete frame (length prefix included). Throws on a corrupt length. */
  push(chunk: Buffer): Buffer[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const frames: Buffer[] = [];
    let off = 0;
    while (this.pending.length - off >= 4) {
      const len = this.pending.readInt32BE(off);
      if (len < 0 || len > FrameSplitter.MAX_FRAME) throw new RangeError(`bad frame length ${len}`);
      if (this.pending.length - off < 4 + len) break;
      frames.push(this.pending.subarray(off, off + 4 + len));
      off += 4 + len;
    }
    this.pending = off === 0 ? this.pending : this.pending.subarray(off);
    return frames;
  }

  /** Bytes of an incomplete frame currently held. */
  get buffered(): number {
    return this.pending.length;
  }
}

/** Adds the chroot prefix to a client path. */
export function withChroot(chroot: string | undefined, path: string): string {
  if (!chroot) return path;
  return path === '/' ? chroot : chroot + path;
}

/** Strips the chroot prefix from a server path. */
export function withoutChroot(chroot: string | undefined, path: string): string {
  if (!chroot) return path;
  if (path === chroot) return '/';
  return path.startsWith(chroot + '/') ? path.substring(chroot.length) : path;
}

/** One operation of a multi, in wire terms. */
export type MultiOpWire =
  | { type: 'create'; path: string; data: Uint8Array | null; acl: readonly AclEntry[]; flags: number }
  | { type: 'delete'; path: string; version: number }
  | { type: 'setData'; path: string; data: Uint8Array; version: number }
  | { type: 'check'; path: string; version: number };

/** Encodes the body of a MULTI request. Versions are written as given: 0 means version 0. */
export function encodeMulti(w: JuteWriter, ops: readonly MultiOpWire[], chroot: string | undefined): void {
  for (const op of ops) {
    const p = withChroot(chroot, op.path);
    switch (op.type) {
      case 'create':
        // Container creates go as CREATE_CONTAINER; everything else as CREATE2 so results carry a stat.
        w.int(op.flags === CREATE_FLAGS.container ? OP.createContainer : OP.create2).bool(false).int(-1);
        w.ustring(p).buffer(op.data).acl(op.acl).int(op.flags);
        break;
      case 'delete':
        w.int(OP.delete).bool(false).int(-1).ustring(p).int(op.version);
        break;
      case 'setData':
        w.int(OP.setData).bool(false).int(-1).ustring(p).buffer(op.data).int(op.version);
        break;
      case 'check':
        w.int(OP.check).bool(false).int(-1).ustring(p).int(op.version);
        break;
    }
  }
  w.int(-1).bool(true).int(-1);
}

export type MultiResultWire =
  | { type: 'create'; path: string; stat: Stat | null }
  | { type: 'delete' }
  | { type: 'setData'; stat: Stat }
  | { type: 'check' }
  | { type: 'error'; err: number };

/** Decodes a MultiResponse body. */
export function decodeMulti(r: JuteReader, chroot: string | undefined): MultiResultWire[] {
  const out: MultiResultWire[] = [];
  for (;;) {
    const type = r.int();
    const done = r.bool();
    const err = r.int();
    if (done) break;
    switch (type) {
      case OP.create:
        out.push({ type: 'create', path: withoutChroot(chroot, r.ustring() ?? ''), stat: null });
        break;
      case OP.create2:
      case OP.createContainer: {
        const path = withoutChroot(chroot, r.ustring() ?? '');
        out.push({ type: 'create', path, stat: r.stat() });
        break;
      }
      case OP.delete:
        out.push({ type: 'delete' });
        break;
      case OP.setData:
        out.push({ type: 'setData', stat: r.stat() });
        break;
      case OP.check:
        out.push({ type: 'check' });
        break;
      case OP.error:
        out.push({ type: 'error', err: r.int() });
        break;
      default:
        throw new RangeError(`jute: unknown multi result type ${type} (header err ${err})`);
    }
  }
  return out;
}
