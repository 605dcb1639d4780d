import { describe, expect, it } from 'vitest';
import {
  CREATE_FLAGS,
  FrameSplitter,
  JuteReader,
  JuteWriter,
  OP,
  decodeMulti,
  encodeMulti,
  isPositiveZxid,
  readReplyHeader,
  withChroot,
  withoutChroot,
} from '../../src/session/frames.js';

function frame(body: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeInt32BE(body.length);
  return Buffer.concat([len, body]);
}

describe('FrameSplitter', () => {
  it('splits complete frames and keeps partial ones across chunks', () => {
    const a = frame(Buffer.from('hello'));
    const b = frame(Buffer.from('world!!'));
    const all = Buffer.concat([a, b]);
    const sp = new FrameSplitter();
    expect(sp.push(all.subarray(0, 3))).toEqual([]);
    expect(sp.push(all.subarray(3, 10))).toEqual([a]);
    expect(sp.buffered).toBe(1);
    expect(sp.push(all.subarray(10))).toEqual([b]);
    expect(sp.buffered).toBe(0);
  });

  it('a new splitter (new socket) does not see the old partial frame', () => {
    const old = new FrameSplitter();
    old.push(frame(Buffer.alloc(100)).subarray(0, 50));
    expect(old.buffered).toBe(50);
    const fresh = new FrameSplitter();
    const connectResponse = frame(Buffer.alloc(37));
    expect(fresh.push(connectResponse)).toEqual([connectResponse]);
  });

  it('rejects a corrupt length', () => {
    const bad = Buffer.alloc(8);
    bad.writeInt32BE(-5);
    expect(() => new FrameSplitter().push(bad)).toThrow(/bad frame length/);
  });
});

describe('jute codec', () => {
  it('round-trips ints, strings, buffers, booleans and null', () => {
    const f = new JuteWriter().int(-7).ustring('héllo').ustring(null).buffer(Buffer.from([1, 2])).buffer(null).bool(true).frame();
    const r = new JuteReader(f, 4);
    expect(r.int()).toBe(-7);
    expect(r.ustring()).toBe('héllo');
    expect(r.ustring()).toBeNull();
    expect([...r.buffer()]).toEqual([1, 2]);
    expect(r.buffer().length).toBe(0);
    expect(r.bool()).toBe(true);
    expect(() => r.int()).toThrow(RangeError);
  });

  it('grows past its first buffer without losing what it wrote; the length prefix counts the body', () => {
    const big = 'é'.repeat(300); // 600 bytes, past the first 128
    const data = Buffer.alloc(1000, 7);
    const f = new JuteWriter().int(1).ustring(big).buffer(data).int(2).frame();
    expect(f.readInt32BE(0)).toBe(f.length - 4);
    const r = new JuteReader(f, 4);
    expect([r.int(), r.ustring(), r.buffer().equals(data), r.int()]).toEqual([1, big, true, 2]);
    expect(r.offset).toBe(f.length);
  });

  it('reads a Stat with 64-bit fields as bigint', () => {
    const b = Buffer.alloc(68);
    b.writeBigInt64BE(0x100000001n, 0);
    b.writeBigInt64BE(0x7234567890abcdefn, 44);
    b.writeInt32BE(3, 32);
    const st = new JuteReader(b).stat();
    expect(st.czxid).toBe(0x100000001n);
    expect(st.ephemeralOwner).toBe(0x7234567890abcdefn);
    expect(st.version).toBe(3);
  });

  it('reads a reply header', () => {
    const b = Buffer.alloc(20);
    b.writeInt32BE(16, 0);
    b.writeInt32BE(42, 4);
    b.writeBigInt64BE(99n, 8);
    b.writeInt32BE(-125, 16);
    const h = readReplyHeader(b);
    expect(h.xid).toBe(42);
    expect(h.zxid.readBigInt64BE(0)).toBe(99n);
    expect(h.err).toBe(-125);
  });

  it('tells a positive zxid (the only kind that advances the last one seen) without a bigint', () => {
    const zxid = (v: bigint) => {
      const b = Buffer.alloc(8);
      b.writeBigInt64BE(v);
      return b;
    };
    for (const v of [1n, 0xffffffffn, 0x100000000n, 0x7fffffffffffffffn]) expect(isPositiveZxid(zxid(v)), String(v)).toBe(true);
    for (const v of [0n, -1n, -0x100000000n, -0x8000000000000000n]) expect(isPositiveZxid(zxid(v)), String(v)).toBe(false);
  });

  it('encodes multi ops with version 0 as 0 and containers as CREATE_CONTAINER', () => {
    const w = new JuteWriter();
    encodeMulti(
      w,
      [
        { type: 'check', path: '/a', version: 0 },
        { type: 'create', path: '/c', data: null, acl: [], flags: CREATE_FLAGS.container },
        { type: 'delete', path: '/a', version: -1 },
      ],
      '/root',
    );
    const r = new JuteReader(w.frame(), 4);
    expect([r.int(), r.bool(), r.int()]).toEqual([OP.check, false, -1]);
    expect(r.ustring()).toBe('/root/a');
    expect(r.int()).toBe(0);
    expect([r.int(), r.bool(), r.int()]).toEqual([OP.createContainer, false, -1]);
    expect(r.ustring()).toBe('/root/c');
    r.buffer();
    expect(r.int()).toBe(0); // empty ACL vector
    expect(r.int()).toBe(4);
    expect([r.int(), r.bool(), r.int()]).toEqual([OP.delete, false, -1]);
    expect(r.ustring()).toBe('/root/a');
    expect(r.int()).toBe(-1);
    expect([r.int(), r.bool(), r.int()]).toEqual([-1, true, -1]);
  });

  it('decodes multi results, including errors and CREATE2 results, stripping the chroot', () => {
    const w = new JuteWriter();
    w.int(OP.create2).bool(false).int(0).ustring('/root/x');
    for (let i = 0; i < 68 / 4; i++) w.int(0);
    w.int(OP.error).bool(false).int(-103).int(-103);
    w.int(-1).bool(true).int(-1);
    const results = decodeMulti(new JuteReader(w.frame(), 4), '/root');
    expect(results[0]).toMatchObject({ type: 'create', path: '/x' });
    expect(results[1]).toEqual({ type: 'error', err: -103 });
  });

  it('chroot helpers', () => {
    expect(withChroot(undefined, '/a')).toBe('/a');
    expect(withChroot('/r', '/')).toBe('/r');
    expect(withChroot('/r', '/a')).toBe('/r/a');
    expect(withoutChroot('/r', '/r')).toBe('/');
    expect(withoutChroot('/r', '/r/a')).toBe('/a');
    expect(withoutChroot('/r', '/rx')).toBe('/rx');
  });
});
