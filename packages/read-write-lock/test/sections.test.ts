import { describe, expect, it } from 'vitest';
import { checkReadWrite, sectionsOf, type Section } from './support/sections.js';

const s = (lock: 'read' | 'write', start: number, end: number, worker = 'w'): Section => ({ lock, worker, start: BigInt(start), end: BigInt(end) });

describe('checkReadWrite (the multi-process checker)', () => {
  it('finds a write overlapping a read or a write, and nothing for touching sections', () => {
    expect(checkReadWrite([s('write', 0, 10), s('read', 10, 20), s('write', 20, 30)]).writeOverlaps).toEqual([]);
    expect(checkReadWrite([s('write', 0, 10), s('read', 9, 20)]).writeOverlaps).toHaveLength(1);
    expect(checkReadWrite([s('read', 0, 10), s('write', 5, 6)]).writeOverlaps).toHaveLength(1);
    expect(checkReadWrite([s('write', 0, 10), s('write', 1, 2), s('write', 3, 4)]).writeOverlaps).toHaveLength(2);
  });

  it('counts concurrent readers', () => {
    expect(checkReadWrite([s('read', 0, 10), s('read', 1, 5), s('read', 2, 3), s('read', 10, 11)]).maxConcurrentReaders).toBe(3);
    expect(checkReadWrite([s('read', 0, 10), s('read', 10, 20)]).maxConcurrentReaders).toBe(1);
  });

  it('reads Node and Java section lines alike', () => {
    const lines = [
      { type: 'ready', worker: 'x' },
      { type: 'section', worker: 'java-1', lock: 'write', i: 0, start: '5', end: '7' },
      { type: 'section', worker: 'node-2', lock: 'read', i: 0, start: '8', end: '9', token: '3' },
      { type: 'done', done: true },
    ];
    expect(sectionsOf(lines)).toEqual([s('write', 5, 7, 'java-1'), s('read', 8, 9, 'node-2')]);
  });
});
