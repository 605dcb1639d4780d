import { describe, expect, it } from 'vitest';
import { parseOptions } from '@zk-recipes/core';
import { ReadWriteLockOptionsSchema } from '../src/options.js';
import { namingFor } from '../src/naming.js';

describe('ReadWriteLockOptions', () => {
  it("defaults to zk-recipes' names", () => {
    expect(parseOptions(ReadWriteLockOptionsSchema, {}, 'test')).toEqual({ naming: 'zk-recipes' });
    expect(namingFor('zk-recipes')).toEqual({ read: 'read-', write: 'write-' });
    expect(namingFor('curator')).toEqual({ read: '__READ__', write: '__WRIT__' });
  });

  it('refuses unknown naming and unknown keys with INVALID_ARGUMENT', () => {
    expect(() => parseOptions(ReadWriteLockOptionsSchema, { naming: 'kazoo' }, 'test')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => parseOptions(ReadWriteLockOptionsSchema, { nmaing: 'curator' }, 'test')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});
