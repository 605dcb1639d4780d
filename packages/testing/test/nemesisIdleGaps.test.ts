import { describe, expect, it } from 'vitest';
import type { CheckedHold } from '../src/nemesis/checker.js';
import { faultAllowanceMs, findIdleGaps, idleBoundMs, type Wait } from '../src/nemesis/idleGaps.js';

const MS = 1_000_000n;
const at = (ms: number): bigint => BigInt(ms) * MS;
function hold(worker: string, grantedMs: number, endMs: number): CheckedHold {
  return { worker, id: 0, path: `/lock/${worker}`, session: `s-${worker}`, granted: at(grantedMs), end: at(endMs), effectiveEnd: at(endMs) };
}
function wait(worker: string, startMs: number, endMs: number | null): Wait {
  return { worker, id: 0, start: at(startMs), end: endMs === null ? null : at(endMs) };
}
const gapsOf = (holds: CheckedHold[], waits: Wait[], maxConcurrent = 1) =>
  findIdleGaps({ holds, waits, maxConcurrent, runEnd: at(1000) }).map((g) => ({ start: Number(g.start / MS), end: Number(g.end / MS), waiters: g.waiters.sort() }));

describe('findIdleGaps', () => {
  it('a hand-off at the same instant leaves no gap; a free lock with a waiter does, from the release to the grant', () => {
    // a holds 0-10, b waits from 5 and is granted at 10: none. b holds 10-20, c waits from 15, granted at 23.
    const holds = [hold('a', 0, 10), hold('b', 10, 20), hold('c', 23, 30)];
    const waits = [wait('b', 5, 10), wait('c', 15, 23)];
    expect(gapsOf(holds, waits)).toEqual([{ start: 20, end: 23, waiters: ['c'] }]);
  });

  it('a free lock with nobody waiting is no gap; a gap starts when a waiter comes and ends when the last stops waiting', () => {
    const holds = [hold('a', 0, 10), hold('b', 50, 60)];
    // b arrives at 40 (free since 10: the gap starts at 40) and gives up at 45; arrives again at 48, granted at 50.
    const waits = [wait('b', 40, 45), wait('b', 48, 50)];
    expect(gapsOf(holds, waits)).toEqual([
      { start: 40, end: 45, waiters: ['b'] },
      { start: 48, end: 50, waiters: ['b'] },
    ]);
  });

  it('names every process that waited during the gap, those already waiting when it opened included; longest first', () => {
    const holds = [hold('a', 0, 10), hold('b', 30, 40), hold('c', 41, 50)];
    const waits = [wait('b', 5, 30), wait('c', 20, 41)];
    expect(gapsOf(holds, waits)).toEqual([
      { start: 10, end: 30, waiters: ['b', 'c'] },
      { start: 40, end: 41, waiters: ['c'] },
    ]);
  });

  it('with k leases, the lock is free only while fewer than k are held; a wait still open at the end runs to it', () => {
    const holds = [hold('a', 0, 100), hold('b', 0, 50)];
    const waits = [wait('c', 20, null)];
    expect(gapsOf(holds, waits, 2)).toEqual([{ start: 50, end: 1000, waiters: ['c'] }]);
    expect(gapsOf(holds, waits, 1)).toEqual([{ start: 100, end: 1000, waiters: ['c'] }]);
  });
});

describe('idleBoundMs', () => {
  const gap = { start: at(10_000), end: at(15_000), waiters: ['a'] };
  const fault = (kind: string, startMs: number, endMs: number) => ({ kind, start: at(startMs), end: at(endMs) });

  it('is the quiet bound with no fault acting on the gap (an operator write, or a fault over a session timeout before)', () => {
    expect(idleBoundMs(gap, [], 3000, 200)).toBe(200);
    expect(idleBoundMs(gap, [fault('write-holder', 12_000, 12_001), fault('kill', 6_000, 6_010)], 3000, 200)).toBe(200);
    expect(idleBoundMs(gap, [fault('kill', 16_000, 16_010)], 3000, 200)).toBe(200); // after the gap
  });

  it('adds what each fault may cost: a kill a session timeout, a pause until it ends or the session expires, a leader failure its length', () => {
    expect(faultAllowanceMs(fault('kill', 0, 10), 3000)).toBe(4000);
    expect(faultAllowanceMs(fault('pause-short', 0, 500), 3000)).toBe(1500);
    expect(faultAllowanceMs(fault('pause-long', 0, 5_500), 3000)).toBe(4000);
    expect(faultAllowanceMs(fault('leader-kill', 0, 1_600), 3000)).toBe(2600);
    expect(faultAllowanceMs(fault('delete-all', 0, 50), 3000)).toBe(0);
    expect(faultAllowanceMs(fault('drop-create', 0, 0), 3000)).toBe(1000);
    // A stalled server: as a partition of everyone on it, and a second for an election.
    expect(faultAllowanceMs(fault('server-stall', 0, 1_600), 3000)).toBe(1600 + 2000);
    expect(faultAllowanceMs(fault('server-stall', 0, 6_000), 3000)).toBe(3000 + 2000);
    // A holder killed just before the gap, then the next waiter paused during it: both count.
    expect(idleBoundMs(gap, [fault('kill', 9_000, 9_010), fault('pause-long', 11_000, 16_000)], 3000, 200)).toBe(200 + 4000 + 4000);
  });
});

describe('idleBoundMs on a busy machine', () => {
  const gap = { start: at(10_000), end: at(15_000), waiters: ['a'] };
  const fault = (kind: string, startMs: number, endMs: number) => ({ kind, start: at(startMs), end: at(endMs) });

  it('multiplies the hand-off and the work after each fault by the slowness, never the fault itself or the session timeout', () => {
    expect(idleBoundMs(gap, [], 3000, 500, 4)).toBe(2000);
    // A kill: the session timeout as it is, the second after it ×4.
    expect(faultAllowanceMs(fault('kill', 0, 10), 3000, 4)).toBe(3000 + 4000);
    // A pause of 500 ms: its length as it is.
    expect(faultAllowanceMs(fault('pause-short', 0, 500), 3000, 4)).toBe(500 + 4000);
    expect(faultAllowanceMs(fault('server-stall', 0, 1_600), 3000, 2)).toBe(1600 + 4000);
    // An operator's write holds nothing back, however busy the machine.
    expect(faultAllowanceMs(fault('write-holder', 0, 1), 3000, 10)).toBe(0);
    expect(idleBoundMs(gap, [fault('kill', 9_000, 9_010)], 3000, 500, 2)).toBe(1000 + 3000 + 2000);
  });
});
