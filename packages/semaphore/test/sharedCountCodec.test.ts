import { describe, expect, it } from 'vitest';
import { decodeCount, encodeCount } from '../src/SharedCount.js';
import { parseSemaphoreOptions } from '../src/options.js';

describe('SharedCount encoding (Curator SharedCount: 4-byte big-endian int)', () => {
  it('round-trips', () => {
    for (const v of [0, 1, 3, -1, 2 ** 31 - 1, -(2 ** 31)]) expect(decodeCount(encodeCount(v))).toBe(v);
    expect([...encodeCount(3)]).toEqual([0, 0, 0, 3]);
  });
  it('rejects other data', () => {
    expect(decodeCount(new Uint8Array([1, 2, 3]))).toBeNull();
  });
});

describe('semaphore options', () => {
  const invalid = expect.objectContaining({ code: 'INVALID_ARGUMENT' });
  it('needs exactly one of maxLeases and count', () => {
    expect(() => parseSemaphoreOptions({}, 'test')).toThrow(invalid);
    expect(() => parseSemaphoreOptions({ maxLeases: 0 }, 'test')).toThrow(invalid);
    expect(parseSemaphoreOptions({ maxLeases: 3 }, 'test')).toEqual({ maxLeases: 3, layout: 'queue' });
    expect(() => parseSemaphoreOptions({ maxLeases: 3, layout: 'zk' }, 'test')).toThrow(invalid);
  });
});
