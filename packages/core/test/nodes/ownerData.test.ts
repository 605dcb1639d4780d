import { describe, expect, it } from 'vitest';
import { encodeOwnerData, parseOwnerData } from '../../src/nodes/index.js';
import { REVOCATION_MARKER } from '../../src/nodes/nodeData.js';

const utf8 = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

describe('encodeOwnerData', () => {
  it('writes the documented JSON: keys in order, no whitespace, label only when set', () => {
    expect(utf8(encodeOwnerData({ host: 'web-1', pid: 4242 }))).toBe('{"zkRecipes":1,"host":"web-1","pid":4242}');
    expect(utf8(encodeOwnerData({ host: 'web-1', pid: 4242, label: 'billing' }))).toBe('{"zkRecipes":1,"host":"web-1","pid":4242,"label":"billing"}');
  });

  it("an election participant's id, when given, last", () => {
    expect(utf8(encodeOwnerData({ host: 'web-1', pid: 4242, label: 'billing', id: 'scheduler-a' }))).toBe('{"zkRecipes":1,"host":"web-1","pid":4242,"label":"billing","id":"scheduler-a"}');
    expect(utf8(encodeOwnerData({ host: 'web-1', pid: 4242, id: 'scheduler-a' }))).toBe('{"zkRecipes":1,"host":"web-1","pid":4242,"id":"scheduler-a"}');
  });
});

describe('parseOwnerData', () => {
  it('reads back what encodeOwnerData wrote, with and without a label, unicode included', () => {
    for (const owner of [{ host: 'web-1', pid: 1 }, { host: 'höst-名前', pid: 2 ** 22, label: 'nightly "batch"' }, { host: 'h', pid: 2, id: '{"zkRecipes":1}' }]) {
      expect(parseOwnerData(encodeOwnerData(owner))).toEqual(owner);
    }
  });

  it("names nobody for anything else: empty, Curator's IP address, __REVOKE__, a caller's data, other JSON, broken JSON", () => {
    const others = [
      new Uint8Array(0),
      Buffer.from('10.0.0.17'),
      Buffer.from(REVOCATION_MARKER),
      Buffer.from('worker-3'),
      Buffer.from('{"host":"web-1","pid":1}'),
      Buffer.from('{"zkRecipes":2,"host":"web-1","pid":1}'),
      Buffer.from('{"zkRecipes":1,"host":"web-1"}'),
      Buffer.from('{"zkRecipes":1,"host":"web-1","pid":-1}'),
      Buffer.from('{"zkRecipes":1,"host":"web-1","pid":1.5}'),
      Buffer.from('{"zkRecipes":1,"host":7,"pid":1}'),
      Buffer.from('{"zkRecipes":1,"host":"web-1","pid":1,"label":3}'),
      Buffer.from('{"zkRecipes":1,"host":"web-1","pid":1,"id":["scheduler-a"]}'),
      Buffer.from('{"zkRecipes":1,"host":"web-1","pid":1'),
      Buffer.from('zkr:holds:not-a-session-id\n{"zkRecipes":1,"host":"web-1","pid":1}'),
      Buffer.from([0xff, 0xfe, 0x00]),
    ];
    for (const data of others) expect(parseOwnerData(data), JSON.stringify(utf8(data))).toBeUndefined();
  });

  it('reads a view into a larger buffer (getData gives pooled Buffers)', () => {
    const inner = encodeOwnerData({ host: 'h', pid: 3 });
    const pool = Buffer.concat([Buffer.from('xxxx'), inner, Buffer.from('yyyy')]);
    expect(parseOwnerData(pool.subarray(4, 4 + inner.length))).toEqual({ host: 'h', pid: 3 });
  });
});
