import { describe, expect, it } from 'vitest';
import { MAX_SEQUENCE, kindOf, sequenceOf, sortedChildren, withoutSequence } from '../../src/nodes/index.js';
import { expectTimely } from '../support/timeBound.js';

const G1 = '3f0a3c6e-8b1d-4c5e-9f2a-7d6b5c4e3a21';
const G2 = '9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f';

describe('sequenceOf', () => {
  it('reads the trailing ten digits', () => {
    expect(sequenceOf('lock-0000000003')).toBe(3);
    expect(sequenceOf(`_c_${G1}-lock-0000000042`)).toBe(42);
    expect(sequenceOf('__READ__0000000000')).toBe(0);
    expect(sequenceOf('0000000123')).toBe(123);
    expect(sequenceOf(`_c_${G1}-lease-0000012345`)).toBe(12345);
  });

  it('accepts values up to 2^31-1 and refuses larger ten-digit numbers ZooKeeper cannot write', () => {
    expect(sequenceOf('lock-2147483647')).toBe(MAX_SEQUENCE);
    expect(sequenceOf('lock-1500000000')).toBe(1_500_000_000);
    expect(sequenceOf('__WRIT__1999999999')).toBe(1_999_999_999);
    expect(sequenceOf('x2200000000')).toBeNull();
    expect(sequenceOf('lock-9999999999')).toBeNull();
  });

  it('reads the counter wrapped to negative values, as %010d formats them', () => {
    expect(sequenceOf('lock--000000001')).toBe(-1);
    expect(sequenceOf('__READ__-000000005')).toBe(-5);
    expect(sequenceOf('lock--999999999')).toBe(-999_999_999);
    expect(sequenceOf('lock--2147483648')).toBe(-2_147_483_648);
    expect(sequenceOf('lock--1500000000')).toBe(-1_500_000_000);
    // Positive reading impossible, so this is the wrapped value with prefix "lock".
    expect(sequenceOf('lock-2147483648')).toBe(-2_147_483_648);
    expect(sequenceOf('lock--000000000')).toBeNull(); // %010d never writes "-000000000"
    expect(sequenceOf('lock--2147483649')).toBeNull();
    // Nine digits after a dash can only be a wrapped value: ZooKeeper never writes nine positive digits.
    expect(sequenceOf('lock-000000003')).toBe(-3);
    expect(kindOf('lock-000000003')).toBe('lock');
  });

  it('is null for names without a sequence', () => {
    for (const name of ['lock-', 'lock-123', 'lock-00000003', 'lock-1-2-3', `_c_${G1}-lock-`, 'readme.txt', '', 'lock-00000000x3']) {
      expect(sequenceOf(name), name).toBeNull();
    }
  });

  it('uses only the last ten digits of a longer run', () => {
    expect(sequenceOf('lock-120000000003')).toBe(3);
  });
});

describe('kindOf', () => {
  it('is the text between the protection header and the sequence', () => {
    expect(kindOf(`_c_${G1}-lock-0000000001`)).toBe('lock-');
    expect(kindOf(`_c_${G1}-__READ__0000000001`)).toBe('__READ__');
    expect(kindOf(`_c_${G1}-__WRIT__0000000001`)).toBe('__WRIT__');
    expect(kindOf(`_c_${G1}-read-0000000001`)).toBe('read-');
    expect(kindOf(`_c_${G1}-write-0000000001`)).toBe('write-');
    expect(kindOf(`_c_${G1}-lease-0000000001`)).toBe('lease-');
    expect(kindOf('lock-0000000003')).toBe('lock-');
    expect(kindOf('0000000003')).toBe('');
    expect(kindOf('lock--000000001')).toBe('lock-');
  });

  it('is the unprotected remainder when there is no sequence', () => {
    expect(kindOf(`_c_${G1}-lock-`)).toBe('lock-');
    expect(kindOf('readme.txt')).toBe('readme.txt');
  });
});

describe('withoutSequence', () => {
  it('is the name a sequential create asked for, wrapped sequences included', () => {
    expect(withoutSequence(`_c_${G1}-lock-0000000001`)).toBe(`_c_${G1}-lock-`);
    expect(withoutSequence(`_c_${G1}-__WRIT__0000000001`)).toBe(`_c_${G1}-__WRIT__`);
    expect(withoutSequence(`_c_${G1}-lock--2147483648`)).toBe(`_c_${G1}-lock-`);
    expect(withoutSequence(`_c_${G1}-lock--000000001`)).toBe(`_c_${G1}-lock-`);
    expect(withoutSequence('readme.txt')).toBe('readme.txt');
  });
});

describe('sortedChildren', () => {
  it('orders by sequence, not by name, and parses each entry', () => {
    const children = [
      `_c_${G2}-lock-0000000010`,
      `_c_${G1}-lock-0000000002`,
      'lock-0000000003',
    ];
    expect(sortedChildren(children)).toEqual([
      { name: `_c_${G1}-lock-0000000002`, sequence: 2, kind: 'lock-', guid: G1 },
      { name: 'lock-0000000003', sequence: 3, kind: 'lock-', guid: null },
      { name: `_c_${G2}-lock-0000000010`, sequence: 10, kind: 'lock-', guid: G2 },
    ]);
  });

  it('ignores names without a sequence and tolerates other libraries\' names', () => {
    const kazoo = 'a1b2c3d4e5f60718293a4b5c6d7e8f90__lock__0000000004';
    const entries = sortedChildren([
      'leases',
      'readme.txt',
      kazoo,
      `_c_${G1}-lock-`,
      `_c_${G1}-lock-0000000005`,
      'lock-9999999999',
    ]);
    expect(entries.map((e) => e.name)).toEqual([kazoo, `_c_${G1}-lock-0000000005`]);
    expect(entries[0]).toMatchObject({ sequence: 4, kind: 'a1b2c3d4e5f60718293a4b5c6d7e8f90__lock__', guid: null });
  });

  it('breaks ties on equal sequences by name, deterministically', () => {
    const a = `_c_${G1}-__READ__0000000007`;
    const b = `_c_${G1}-__WRIT__0000000007`;
    const c = `_c_${G2}-__READ__0000000007`;
    expect(sortedChildren([c, b, a]).map((e) => e.name)).toEqual([a, b, c]);
    expect(sortedChildren([a, c, b]).map((e) => e.name)).toEqual([a, b, c]);
  });

  it('compares numerically across digit patterns and large values', () => {
    const names = ['lock-2147483647', 'lock-1000000000', 'lock-0999999999', 'lock-0000000000', 'lock--000000001'];
    expect(sortedChildren(names).map((e) => e.sequence)).toEqual([-1, 0, 999_999_999, 1_000_000_000, 2_147_483_647]);
  });

  it('does not modify its input and handles an empty listing', () => {
    const input = ['lock-0000000002', 'lock-0000000001'];
    sortedChildren(input);
    expect(input).toEqual(['lock-0000000002', 'lock-0000000001']);
    expect(sortedChildren([])).toEqual([]);
  });

  it('sorts 10,000 children quickly', () => {
    const names = Array.from({ length: 10_000 }, (_, i) => `_c_${G1}-lock-${String(10_000 - i).padStart(10, '0')}`);
    const started = performance.now();
    const entries = sortedChildren(names);
    expectTimely('sorting 10,000 children', performance.now() - started, 500);
    expect(entries[0]?.sequence).toBe(1);
    expect(entries.at(-1)?.sequence).toBe(10_000);
  });
});

describe('sequenceOf and kindOf, scanned', () => {
  /** The rules as regular expressions (how they read before names were scanned by hand). */
  function byExpressions(name: string): { head: string; sequence: number } | null {
    const longNeg = /-([12]\d{9})$/.exec(name);
    if (longNeg !== null) {
      const magnitude = Number(longNeg[1]);
      const head = name.slice(0, name.length - 11);
      if (magnitude <= MAX_SEQUENCE + 1 && (magnitude > MAX_SEQUENCE || head.endsWith('-'))) return { head, sequence: -magnitude };
    }
    const pos = /(\d{10})$/.exec(name);
    if (pos !== null) {
      const value = Number(pos[1]);
      return value <= MAX_SEQUENCE ? { head: name.slice(0, name.length - 10), sequence: value } : null;
    }
    const shortNeg = /-(\d{9})$/.exec(name);
    if (shortNeg !== null) {
      const value = -Number(shortNeg[1]);
      return value === 0 ? null : { head: name.slice(0, name.length - 10), sequence: value };
    }
    return null;
  }

  it('agree with the rules on names built from every tail that matters', () => {
    const tails = ['0000000000', '0000000042', '2147483647', '2147483648', '9999999999', '-000000000', '-000000001', '-999999999', '-1000000000', '-2147483648', '-2147483649', '-3000000000', '--1500000000', '-1500000000', '1500000000', '00000000x1', 'x', '', '12345', '-12345678', '0-00000001'];
    const heads = ['', 'lock-', 'lock', '__READ__', '-', 'a-', `_c_${G1}-lock-`];
    for (const head of heads) {
      for (const tail of tails) {
        const name = head + tail;
        const expected = byExpressions(name);
        expect(sequenceOf(name), name).toBe(expected?.sequence ?? null);
      }
    }
  });
});
