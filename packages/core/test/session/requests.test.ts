import { describe, expect, it } from 'vitest';
import { JuteReader, JuteWriter, OP, type ReplyHeader } from '../../src/session/frames.js';
import {
  createRequest,
  decodeAcl,
  decodeChildren,
  decodeCreated,
  decodeData,
  decodeChildrenIfExists,
  decodeDataIfExists,
  decodeExists,
  decodeWatchesRemoved,
  decodeStat,
  decodeTransaction,
  deleteRequest,
  getAclRequest,
  readRequest,
  removeWatchesRequest,
  setAclRequest,
  setDataRequest,
  transactionRequest,
} from '../../src/session/requests.js';
import { ReplyCode } from '../../src/session/errorMapping.js';
import { assertRequestFits, type OwnRequest } from '../../src/session/ownRequest.js';
import type { Stat } from '../../src/session/types.js';

const OPEN = [{ perms: 31, scheme: 'world', id: 'anyone' }];
const reader = (body: Buffer) => new JuteReader(body);
const header = (err = 0): ReplyHeader => ({ xid: 1, zxid: Buffer.alloc(8), err });
/** A zeroed stat (68 bytes) on a writer. */
const stat = (w: JuteWriter) => {
  for (let i = 0; i < 68 / 4; i++) w.int(0);
  return w;
};
const bodyOf = (w: JuteWriter) => w.frame().subarray(4);

describe('request bodies', () => {
  it('create: the chrooted path, data, ACL and mode flags; CREATE2, or CREATE_CONTAINER for containers', () => {
    const { type, body } = createRequest('/app', '/locks/x-', Buffer.from('hi'), OPEN, 'ephemeral_sequential');
    expect(type).toBe(OP.create2);
    const r = reader(body);
    expect(r.ustring()).toBe('/app/locks/x-');
    expect(r.buffer().toString()).toBe('hi');
    expect([r.int(), r.int(), r.ustring(), r.ustring()]).toEqual([1, 31, 'world', 'anyone']);
    expect(r.int()).toBe(3);
    expect(createRequest(undefined, '/d', null, OPEN, 'container').type).toBe(OP.createContainer);
    expect(() => createRequest(undefined, '/d', null, OPEN, 'sideways' as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it('reads: the chrooted path and the watch flag', () => {
    for (const [type, watch] of [[OP.getChildren2, true], [OP.getData, false], [OP.exists, true]] as const) {
      const request = readRequest(type, '/app', '/a', watch);
      expect(request.type).toBe(type);
      const r = reader(request.body);
      expect([r.ustring(), r.bool()]).toEqual(['/app/a', watch]);
    }
  });

  it('delete and setData carry the version; -1 is any, anything below or fractional is refused', () => {
    const r = reader(deleteRequest(undefined, '/a', -1).body);
    expect([r.ustring(), r.int()]).toEqual(['/a', -1]);
    const s = reader(setDataRequest(undefined, '/a', Buffer.from('x'), 4).body);
    expect([s.ustring(), s.buffer().toString(), s.int()]).toEqual(['/a', 'x', 4]);
    expect(() => deleteRequest(undefined, '/a', -2)).toThrow(/version must be an integer >= -1/);
    expect(() => setDataRequest(undefined, '/a', Buffer.alloc(0), 1.5)).toThrow(/version must be an integer >= -1/);
  });

  it('removeWatches names the class of watch (children 1, data 2)', () => {
    const r = reader(removeWatchesRequest('/app', '/a', 'data').body);
    expect([r.ustring(), r.int()]).toEqual(['/app/a', 2]);
    expect(reader(removeWatchesRequest(undefined, '/a', 'child').body).ustring()).toBe('/a');
  });

  it('getACL: the chrooted path (opcode 6); setACL: the path, the ACL and its version (opcode 7)', () => {
    const get = getAclRequest('/app', '/a');
    expect(get.type).toBe(6);
    expect(reader(get.body).ustring()).toBe('/app/a');
    const set = setAclRequest('/app', '/a', [{ perms: 5, scheme: 'digest', id: 'u:h' }], 3);
    expect(set.type).toBe(7);
    const r = reader(set.body);
    expect([r.ustring(), r.int(), r.int(), r.ustring(), r.ustring(), r.int()]).toEqual(['/app/a', 1, 5, 'digest', 'u:h', 3]);
    expect(() => setAclRequest(undefined, '/a', [], -1)).toThrow(/non-empty array/);
    expect(() => setAclRequest(undefined, '/a', OPEN, -2)).toThrow(/version must be an integer >= -1/);
  });

  it('transaction: validated before anything is encoded; a create without an ACL gets the default', () => {
    expect(() => transactionRequest([], OPEN, undefined)).toThrow(/non-empty array/);
    expect(() => transactionRequest([{ type: 'delete', path: 'relative' }], OPEN, undefined)).toThrow(/transaction.delete: invalid znode path/);
    expect(() => transactionRequest([{ type: 'check', path: '/a', version: -3 }], OPEN, undefined)).toThrow(/transaction.check: version/);
    const { type, body } = transactionRequest([{ type: 'create', path: '/a' }], OPEN, '/app');
    expect(type).toBe(OP.multi);
    const r = reader(body);
    expect([r.int(), r.bool(), r.int(), r.ustring()]).toEqual([OP.create2, false, -1, '/app/a']);
    r.buffer();
    expect([r.int(), r.int(), r.ustring(), r.ustring()]).toEqual([1, 31, 'world', 'anyone']);
  });
});

describe('reply decoding', () => {
  it('create: the path without the chroot; children: names and stat', () => {
    expect(decodeCreated(reader(bodyOf(stat(new JuteWriter().ustring('/app/locks/x-0000000001')))), '/app').path).toBe('/locks/x-0000000001');
    const listing = decodeChildren(reader(bodyOf(stat(new JuteWriter().int(2).ustring('b').ustring('a')))));
    expect(listing.children).toEqual(['b', 'a']);
    expect(listing.stat.version).toBe(0);
  });

  it('getACL: the entries, then the stat', () => {
    const w = stat(new JuteWriter().int(2).int(31).ustring('world').ustring('anyone').int(1).ustring('digest').ustring('u:h'));
    expect(decodeAcl(reader(bodyOf(w)))).toEqual({
      acl: [
        { perms: 31, scheme: 'world', id: 'anyone' },
        { perms: 1, scheme: 'digest', id: 'u:h' },
      ],
      stat: expect.objectContaining({ czxid: 0n, aversion: 0 }),
    });
  });

  it('transaction: each op\'s result, or the error of the op that failed (not the RUNTIME_INCONSISTENCY of those after it)', () => {
    const ops = [
      { type: 'create', path: '/a' },
      { type: 'delete', path: '/b' },
      { type: 'check', path: '/c', version: 0 },
    ] as const;
    const failed = new JuteWriter();
    failed.int(OP.error).bool(false).int(0).int(0);
    failed.int(OP.error).bool(false).int(-101).int(-101);
    failed.int(OP.error).bool(false).int(-2).int(-2);
    failed.int(-1).bool(true).int(-1);
    expect(decodeTransaction(reader(bodyOf(failed)), header(-101), [...ops], undefined)).toMatchObject({ code: 'NO_NODE', path: '/b' });

    const ok = stat(new JuteWriter().int(OP.create2).bool(false).int(0).ustring('/app/a'));
    ok.int(OP.delete).bool(false).int(0);
    ok.int(OP.check).bool(false).int(0);
    ok.int(-1).bool(true).int(-1);
    expect(decodeTransaction(reader(bodyOf(ok)), header(), [...ops], '/app')).toEqual([{ type: 'create', path: '/a' }, { type: 'delete' }, { type: 'check' }]);
  });
});

/** A stat whose every field differs, written in ZooKeeper's order (jute's Stat). */
const STAT: Stat = {
  czxid: 0x100000001n,
  mzxid: 0x100000002n,
  ctime: 1_700_000_000_001n,
  mtime: 1_700_000_000_002n,
  version: 3,
  cversion: 4,
  aversion: 5,
  ephemeralOwner: 0x7234567890abcdefn,
  dataLength: 6,
  numChildren: 7,
  pzxid: 0x100000003n,
};
const writeStat = (w: JuteWriter, s: Stat = STAT): JuteWriter => {
  const longs = (...vs: bigint[]) => {
    for (const v of vs) w.int(Number(v >> 32n) | 0).int(Number(v & 0xffffffffn) | 0);
  };
  longs(s.czxid, s.mzxid, s.ctime, s.mtime);
  w.int(s.version).int(s.cversion).int(s.aversion);
  longs(s.ephemeralOwner);
  w.int(s.dataLength).int(s.numChildren);
  longs(s.pzxid);
  return w;
};
/** What the server would read: the frame `toBuffer` writes, split into length, xid, opcode and body. */
const onTheWire = (request: OwnRequest, xid = 7) => {
  request.header.xid = xid;
  const frame = request.toBuffer();
  return { length: frame.readInt32BE(0), xid: frame.readInt32BE(4), type: frame.readInt32BE(8), body: frame.subarray(12), frame };
};

describe('each operation\'s whole request: the frame on the wire and the decoder of its reply', () => {
  it('the frame: length prefix (what maxRequestBytes is checked against), xid, opcode, then the body', () => {
    const request = setDataRequest('/app', '/a', Buffer.from('xyz'), 2);
    const wire = onTheWire(request, 42);
    expect(wire.frame.length).toBe(4 + wire.length);
    expect(request.frameLength).toBe(wire.length);
    expect([wire.xid, wire.type]).toEqual([42, OP.setData]);
    expect(wire.body.equals(request.body)).toBe(true);
    const r = reader(wire.body);
    expect([r.ustring(), r.buffer().toString(), r.int()]).toEqual(['/app/a', 'xyz', 2]);
    expect(r.offset).toBe(wire.body.length);
  });

  it('assertRequestFits: a frame over maxRequestBytes is refused with INVALID_ARGUMENT naming the call; one at the limit passes', () => {
    const request = setDataRequest(undefined, '/a', Buffer.alloc(100), -1);
    expect(() => assertRequestFits('setData', '/a', request, request.frameLength)).not.toThrow();
    expect(() => assertRequestFits('setData', '/a', request, request.frameLength - 1)).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', op: 'setData', path: '/a', message: expect.stringContaining(`${request.frameLength} bytes`) }),
    );
  });

  it('create: the reply decodes to the created path without the chroot and the whole stat', () => {
    const request = createRequest('/app', '/locks/x-', null, OPEN, 'ephemeral_sequential');
    expect(request.decodesErrors).toBe(false);
    const reply = writeStat(new JuteWriter().ustring('/app/locks/x-0000000001'));
    expect(request.decode(reader(bodyOf(reply)), header())).toEqual({ path: '/locks/x-0000000001', stat: STAT });
    // With no data, the data field is jute's null (-1), not an empty buffer.
    const r = reader(request.body);
    r.ustring();
    expect(r.int()).toBe(-1);
  });

  it('setData and setACL decode the new stat; delete and removeWatches nothing', () => {
    const statReply = () => reader(bodyOf(writeStat(new JuteWriter())));
    expect(setDataRequest(undefined, '/a', Buffer.alloc(0), -1).decode(statReply(), header())).toEqual(STAT);
    expect(setAclRequest(undefined, '/a', OPEN, -1).decode(statReply(), header())).toEqual(STAT);
    expect(deleteRequest(undefined, '/a', -1).decode(reader(Buffer.alloc(0)), header())).toBeUndefined();
    expect(removeWatchesRequest(undefined, '/a', 'child').decode(reader(Buffer.alloc(0)), header())).toBeUndefined();
    expect(getAclRequest(undefined, '/a').decode(reader(bodyOf(writeStat(new JuteWriter().int(1).int(31).ustring('world').ustring('anyone')))), header())).toEqual({
      acl: OPEN,
      stat: STAT,
    });
  });

  it('transaction: decodes error replies too (a failed multi carries one result per op)', () => {
    const request = transactionRequest([{ type: 'delete', path: '/b' }], OPEN, undefined);
    expect(request.decodesErrors).toBe(true);
    const failed = new JuteWriter().int(OP.error).bool(false).int(-101).int(-101).int(-1).bool(true).int(-1);
    expect(request.decode(reader(bodyOf(failed)), header(-101))).toMatchObject({ code: 'NO_NODE', op: 'transaction', path: '/b' });
  });
});

describe('reply decoding, field by field', () => {
  it('a stat reply round-trips every field in ZooKeeper\'s order', () => {
    expect(decodeStat(reader(bodyOf(writeStat(new JuteWriter()))))).toEqual(STAT);
  });

  it('getData: the bytes, then the stat; an empty node (jute null) reads as an empty buffer', () => {
    const read = decodeData(reader(bodyOf(writeStat(new JuteWriter().buffer(Buffer.from([0, 1, 255]))))));
    expect([...read.data]).toEqual([0, 1, 255]);
    expect(read.stat).toEqual(STAT);
    expect(decodeData(reader(bodyOf(writeStat(new JuteWriter().buffer(null))))).data.length).toBe(0);
  });

  it('getChildren: the names in the server\'s order, then the stat', () => {
    const listing = decodeChildren(reader(bodyOf(writeStat(new JuteWriter().int(3).ustring('c-2').ustring('a-1').ustring('b')))));
    expect(listing).toEqual({ children: ['c-2', 'a-1', 'b'], stat: STAT });
  });

  it('exists: the stat; NO_NODE is an answer (null); any other error code is the call\'s error', () => {
    expect(decodeExists(reader(bodyOf(writeStat(new JuteWriter()))), header())).toEqual(STAT);
    expect(decodeExists(reader(Buffer.alloc(0)), header(-101))).toBeNull();
    const refused = decodeExists(reader(Buffer.alloc(0)), header(-102));
    expect(refused).toBeInstanceOf(ReplyCode);
    expect((refused as ReplyCode).zkCode).toBe(-102);
  });

  it('getChildrenIfExists / getDataIfExists: NO_NODE is an answer (null), any other code the call\'s error', () => {
    const listing = bodyOf(writeStat(new JuteWriter().int(1).ustring('a-1')));
    expect(decodeChildrenIfExists(reader(listing), header())).toEqual({ children: ['a-1'], stat: STAT });
    expect(decodeChildrenIfExists(reader(Buffer.alloc(0)), header(-101))).toBeNull();
    expect(decodeChildrenIfExists(reader(Buffer.alloc(0)), header(-102))).toEqual(new ReplyCode(-102));
    expect(decodeDataIfExists(reader(bodyOf(writeStat(new JuteWriter().buffer(Buffer.from('x'))))), header())).toMatchObject({ stat: STAT });
    expect(decodeDataIfExists(reader(Buffer.alloc(0)), header(-101))).toBeNull();
    expect(decodeDataIfExists(reader(Buffer.alloc(0)), header(-4))).toEqual(new ReplyCode(-4));
  });

  it('removeWatches: NO_WATCHER (the watch fired meanwhile) answers it; other codes are errors', () => {
    expect(removeWatchesRequest(undefined, '/a', 'data').decodesErrors).toBe(true);
    expect(decodeWatchesRemoved(reader(Buffer.alloc(0)), header(-121))).toBeUndefined();
    expect(decodeWatchesRemoved(reader(Buffer.alloc(0)), header(-102))).toEqual(new ReplyCode(-102));
  });

  it('a truncated reply is a RangeError, not a made-up value', () => {
    const short = bodyOf(writeStat(new JuteWriter())).subarray(0, 60);
    expect(() => decodeStat(reader(short))).toThrow(RangeError);
    expect(() => decodeChildren(reader(bodyOf(new JuteWriter().int(2).ustring('a'))))).toThrow(RangeError);
  });
});
