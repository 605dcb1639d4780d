import { describe, expect, it } from 'vitest';
import { JuteReader, JuteWriter, OP, type ReplyHeader } from '../../src/session/frames.js';
import {
  createRequest,
  decodeAcl,
  decodeChildren,
  decodeCreated,
  decodeTransaction,
  deleteRequest,
  getAclRequest,
  readRequest,
  removeWatchesRequest,
  setAclRequest,
  setDataRequest,
  transactionRequest,
} from '../../src/session/requests.js';

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
