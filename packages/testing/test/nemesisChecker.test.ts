import { describe, expect, it } from 'vitest';
import { checkHolds, type Hold } from '../src/nemesis/checker.js';

const MS = 1_000_000n;
const at = (ms: number): bigint => BigInt(ms) * MS;
function hold(worker: string, grantedMs: number, endMs: number | null, fields: Partial<Hold> = {}): Hold {
  return { worker, id: 0, path: `/lock/${worker}`, session: `s-${worker}`, granted: at(grantedMs), end: endMs === null ? null : at(endMs), ...fields };
}
const base = { runEnd: at(100_000), sessionTimeoutMs: 3000 };

describe('checkHolds', () => {
  it('finds no overlap in holds that follow each other, touching included', () => {
    const r = checkHolds({ ...base, holds: [hold('a', 0, 10), hold('b', 10, 20), hold('a', 25, 30)] });
    expect(r.overlaps).toEqual([]);
  });

  it('finds an overlap between two processes and names both holds', () => {
    const r = checkHolds({ ...base, holds: [hold('a', 0, 10), hold('b', 5, 20)] });
    expect(r.overlaps).toHaveLength(1);
    expect(r.overlaps[0]).toMatchObject({ start: at(5), end: at(10), concurrent: 2 });
    expect(r.overlaps[0]!.holds.map((h) => h.worker).sort()).toEqual(['a', 'b']);
  });

  it('allows k holders with maxConcurrent k, not k + 1', () => {
    const holds = [hold('a', 0, 10), hold('b', 1, 10), hold('c', 2, 10)];
    expect(checkHolds({ ...base, holds, maxConcurrent: 3 }).overlaps).toEqual([]);
    expect(checkHolds({ ...base, holds, maxConcurrent: 2 }).overlaps).toHaveLength(1);
  });

  it('ends a dead process\'s open hold when it died, a hung one\'s at the end of the run', () => {
    const dead = checkHolds({ ...base, holds: [hold('a', 0, null), hold('b', 50, 60)], deaths: { a: at(40) } });
    expect(dead.overlaps).toEqual([]);
    expect(dead.holds[0]).toMatchObject({ effectiveEnd: at(40), endedBy: 'death' });
    const hung = checkHolds({ ...base, holds: [hold('a', 0, null), hold('b', 50, 60)] });
    expect(hung.overlaps).toHaveLength(1);
    expect(hung.holds[0]).toMatchObject({ effectiveEnd: base.runEnd, endedBy: 'run-end' });
  });

  it('cuts the holder at the start of an operator delete of its node', () => {
    const holds = [hold('a', 0, 5000), hold('b', 100, 200)];
    const r = checkHolds({ ...base, holds, deletes: [{ path: '/lock/a', start: at(90), done: at(95) }] });
    expect(r.overlaps).toEqual([]);
    expect(r.holds[0]).toMatchObject({ effectiveEnd: at(90), cutBy: 'node-deleted' });
  });

  it('gives no allowance to a process granted after its node was deleted (a waiter\'s node)', () => {
    const holds = [hold('a', 0, 5000), hold('b', 100, 200, { path: '/lock/b' })];
    const r = checkHolds({ ...base, holds, deletes: [{ path: '/lock/b', start: at(10), done: at(12) }] });
    expect(r.overlaps).toHaveLength(1);
    expect(r.holds[1]!.cutBy).toBeUndefined();
  });

  it('counts a grant while the delete was in flight as an empty hold', () => {
    const holds = [hold('a', 11, 5000), hold('b', 100, 200)];
    const r = checkHolds({ ...base, holds, deletes: [{ path: '/lock/a', start: at(10), done: at(12) }] });
    expect(r.overlaps).toEqual([]);
    expect(r.holds[0]).toMatchObject({ effectiveEnd: at(11), cutBy: 'node-deleted' });
  });

  it('forgives a holder granted on an event from before its node went, when it is told and was next in line', () => {
    // x's node goes at 10-12 while nobody holds; x reads the older event late, is granted at 20
    // and told at 25; y takes over at 21.
    const holds = [hold('x', 20, 25, { abortedAt: at(25) }), hold('y', 21, 30)];
    const r = checkHolds({ ...base, holds, deletes: [{ path: '/lock/x', start: at(10), done: at(12) }] });
    expect(r.overlaps).toEqual([]);
    expect(r.holds[0]).toMatchObject({ effectiveEnd: at(20), cutBy: 'node-deleted' });
    // The same with a forced expiry of its session.
    const e = checkHolds({ ...base, holds, expiries: [{ session: 's-x', start: at(10), done: at(12) }] });
    expect(e.overlaps).toEqual([]);
  });

  it('forgives such a holder killed before it could say it was told, within the lost margin of its grant only', () => {
    // x reads the older event late, is granted at 20 and killed (seen dead at 45): it may have
    // been told and died before printing it. Seen dead 400 ms after the grant, it had time to.
    const deletes = [{ path: '/lock/x', start: at(10), done: at(12) }];
    const killedSoon = checkHolds({ ...base, holds: [hold('x', 20, null), hold('y', 21, 30)], deletes, deaths: { x: at(45) } });
    expect(killedSoon.overlaps).toEqual([]);
    expect(killedSoon.holds[0]).toMatchObject({ effectiveEnd: at(20), cutBy: 'node-deleted' });
    const killedLate = checkHolds({ ...base, holds: [hold('x', 20, null), hold('y', 21, 30)], deletes, deaths: { x: at(420) } });
    expect(killedLate.overlaps).toHaveLength(1);
    // Never when another process held at the delete: that grant is the bug, killed or not.
    const behind = [hold('h', 0, 50), hold('x', 51, null), hold('y', 52, 70)];
    expect(checkHolds({ ...base, holds: behind, deletes, deaths: { x: at(60) } }).overlaps).toHaveLength(1);
  });

  it('does not forgive a waiter granted after its node went while another process held, told or not', () => {
    // h holds 0-50; x's node goes at 10-12; x is granted at 51 anyway, y too at 52.
    const told = [hold('h', 0, 50), hold('x', 51, 60, { abortedAt: at(60) }), hold('y', 52, 70)];
    expect(checkHolds({ ...base, holds: told, deletes: [{ path: '/lock/x', start: at(10), done: at(12) }] }).overlaps).toHaveLength(1);
    const untold = [hold('x', 20, 60), hold('y', 21, 30)];
    expect(checkHolds({ ...base, holds: untold, deletes: [{ path: '/lock/x', start: at(10), done: at(12) }] }).overlaps).toHaveLength(1);
  });

  it('deletes of other nodes, and of the same path after the hold, change nothing', () => {
    const holds = [hold('a', 0, 50), hold('b', 40, 60)];
    const r = checkHolds({ ...base, holds, deletes: [{ path: '/lock/x', start: at(10), done: at(12) }, { path: '/lock/a', start: at(55), done: at(56) }] });
    expect(r.overlaps).toHaveLength(1);
  });

  it('cuts the holder at the start of a forced expiry of its session, not of another session', () => {
    const holds = [hold('a', 0, 5000), hold('b', 3000, 3100)];
    expect(checkHolds({ ...base, holds, expiries: [{ session: 's-a', start: at(100), done: at(150) }] }).overlaps).toEqual([]);
    expect(checkHolds({ ...base, holds, expiries: [{ session: 's-c', start: at(100), done: at(150) }] }).overlaps).toHaveLength(1);
    // A grant on a session already expired is the bug, not an allowance.
    const late = [hold('a', 200, 5000), hold('b', 3000, 3100)];
    expect(checkHolds({ ...base, holds: late, expiries: [{ session: 's-a', start: at(100), done: at(150) }] }).overlaps).toHaveLength(1);
  });

  it('cuts a holder paused longer than the session timeout at the pause; a short pause gets nothing', () => {
    const holds = [hold('a', 0, 9000), hold('b', 5000, 5100)];
    const long = checkHolds({ ...base, holds, pauses: [{ worker: 'a', start: at(1000), end: at(4500) }] });
    expect(long.overlaps).toEqual([]);
    expect(long.holds[0]).toMatchObject({ effectiveEnd: at(1000), cutBy: 'paused-past-session' });
    const short = checkHolds({ ...base, holds, pauses: [{ worker: 'a', start: at(1000), end: at(1500) }] });
    expect(short.overlaps).toHaveLength(1);
    // Granted after the long pause ended: no allowance.
    const after = [hold('a', 4600, 9000), hold('b', 5000, 5100)];
    expect(checkHolds({ ...base, holds: after, pauses: [{ worker: 'a', start: at(1000), end: at(4500) }] }).overlaps).toHaveLength(1);
  });
});

describe('checkHolds with shared (read) holds', () => {
  const read = (worker: string, g: number, e: number): Hold => hold(worker, g, e, { shared: true });

  it('lets readers overlap each other', () => {
    expect(checkHolds({ ...base, holds: [read('a', 0, 10), read('b', 5, 20), read('c', 6, 8)] }).overlaps).toEqual([]);
  });

  it('finds a writer beside a reader, and two writers', () => {
    const rw = checkHolds({ ...base, holds: [read('a', 0, 10), hold('w', 5, 20), read('b', 30, 40)] });
    expect(rw.overlaps).toHaveLength(1);
    expect(rw.overlaps[0]).toMatchObject({ start: at(5), end: at(10) });
    const ww = checkHolds({ ...base, holds: [read('a', 0, 1), hold('w', 5, 20), hold('v', 19, 25)] });
    expect(ww.overlaps).toHaveLength(1);
    expect(ww.overlaps[0]).toMatchObject({ start: at(19), end: at(20) });
  });

  it('a writer that merely touches readers is fine', () => {
    expect(checkHolds({ ...base, holds: [read('a', 0, 10), read('b', 2, 10), hold('w', 10, 20), read('c', 20, 30)] }).overlaps).toEqual([]);
  });
});
