import { describe, expect, it } from 'vitest';
import { parseReadWriteLockOptions } from '../src/options.js';
import { namingFor } from '../src/naming.js';

describe('ReadWriteLockOptions', () => {
  it("defaults to zk-recipes' names", () => {
    expect(parseReadWriteLockOptions(undefined, 'test')).toEqual({ naming: 'zk-recipes' });
    expect(namingFor('zk-recipes')).toEqual({ read: 'read-', write: 'write-' });
    expect(namingFor('curator')).toEqual({ read: '__READ__', write: '__WRIT__' });
  });

  it('refuses unknown naming and unknown keys with INVALID_ARGUMENT', () => {
    expect(() => parseReadWriteLockOptions({ naming: 'kazoo' }, 'test')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => parseReadWriteLockOptions({ nmaing: 'curator' }, 'test')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});
