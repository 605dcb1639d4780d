import { isZkError, NotOwnerError } from '@zk-recipes/core';
import { Deadline as CoreDeadline } from '@zk-recipes/core/recipe-kit';
import { describe, expect, it } from 'vitest';
import {
  acquisitionOrder,
  Deadline,
  InterProcessMultiLock,
  releaseInReverse,
} from '../src/index.js';
import { parseMultiLockOptions, parseMultiLockPaths } from '../src/options.js';

const member = (path: string, tag = path) => ({ path, tag, acquire: () => Promise.reject(new Error('unused')) });

describe('acquisitionOrder', () => {
  it('sorts by path in canonical order, whatever order the locks were listed in', () => {
    const listed = [member('/locks/c'), member('/locks/a'), member('/locks/b/x'), member('/locks/b')];
    expect(acquisitionOrder(listed, 'canonical').map((m) => m.path)).toEqual(['/locks/a', '/locks/b', '/locks/b/x', '/locks/c']);
    expect(acquisitionOrder([...listed].reverse(), 'canonical').map((m) => m.path)).toEqual(['/locks/a', '/locks/b', '/locks/b/x', '/locks/c']);
  });

  it('keeps the given order for members on one path (e.g. a write lock listed before its read lock)', () => {
    const listed = [member('/rw', 'write'), member('/a'), member('/rw', 'read')];
    expect(acquisitionOrder(listed, 'canonical').map((m) => m.tag)).toEqual(['/a', 'write', 'read']);
  });

  it('keeps the caller order with as-given, without touching the input', () => {
    const listed = [member('/b'), member('/a')];
    expect(acquisitionOrder(listed, 'as-given').map((m) => m.path)).toEqual(['/b', '/a']);
    acquisitionOrder(listed, 'canonical');
    expect(listed.map((m) => m.path)).toEqual(['/b', '/a']);
  });
});

describe('Deadline', () => {
  it('is core\'s one deadline over several waits, still exported here', () => {
    expect(Deadline).toBe(CoreDeadline);
  });
});

describe('releaseInReverse', () => {
  it('releases last first, attempts every handle and returns the failures', async () => {
    const order: string[] = [];
    const failure = new Error('b failed');
    const handle = (name: string, fails = false) => ({
      release: async () => {
        order.push(name);
        if (fails) throw failure;
      },
    });
    const given = [false, false, false];
    const failures = await releaseInReverse([handle('a'), handle('b', true), handle('c')], given);
    expect(order).toEqual(['c', 'b', 'a']);
    expect(failures).toEqual([failure]);
    expect(given).toEqual([true, false, true]);
  });

  it('skips the handles given back already, and counts one released directly (NOT_OWNER) as given back', async () => {
    const order: string[] = [];
    const given = [true, false, false];
    const released = { release: async () => Promise.reject(new NotOwnerError('already released')) };
    const failures = await releaseInReverse([{ release: async () => void order.push('a') }, { release: async () => void order.push('b') }, released], given);
    expect(order).toEqual(['b']);
    expect(failures).toEqual([]);
    expect(given).toEqual([true, true, true]);
  });
});

describe('validation', () => {
  const invalid = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      return isZkError(err, 'INVALID_ARGUMENT');
    }
    return false;
  };

  it('defaults to the canonical order and rejects unknown options', () => {
    expect(parseMultiLockOptions(undefined, 'test')).toEqual({ order: 'canonical' });
    expect(invalid(() => new InterProcessMultiLock([member('/a')], { order: 'random' } as never))).toBe(true);
    expect(invalid(() => new InterProcessMultiLock([member('/a')], { timeoutMs: 5 } as never))).toBe(true);
  });

  it('rejects an empty list, a non-lock and a lock listed twice', () => {
    const a = member('/a');
    expect(invalid(() => new InterProcessMultiLock([]))).toBe(true);
    expect(invalid(() => new InterProcessMultiLock([{ path: '/a' } as never]))).toBe(true);
    expect(invalid(() => new InterProcessMultiLock([a, a]))).toBe(true);
    expect(invalid(() => new InterProcessMultiLock([a, member('/a')]))).toBe(false);
  });

  it('rejects duplicate or missing paths for fromPaths', () => {
    expect(invalid(() => parseMultiLockPaths(['/a', '/a'], 'test'))).toBe(true);
    expect(invalid(() => parseMultiLockPaths([], 'test'))).toBe(true);
    expect(parseMultiLockPaths(['/a', '/b'], 'test')).toEqual(['/a', '/b']);
  });

  it('rejects bad acquire options before touching any member (a rejected promise, never a throw)', async () => {
    const multi = new InterProcessMultiLock([member('/a')]);
    let pending: Promise<unknown> | undefined;
    expect(() => (pending = multi.acquire({ timeoutMs: -1 }))).not.toThrow();
    await expect(pending).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
