import { describe, expect, it } from 'vitest';
import { checkDeadlines, type Acquisition } from '../src/nemesis/deadlines.js';

const MS = 1_000_000n;
const at = (ms: number): bigint => BigInt(ms) * MS;
/** An acquisition called at `calledMs` with a deadline `timeoutMs` later, settled at `settledMs` (null: never). */
function acq(worker: string, calledMs: number, timeoutMs: number | null, settledMs: number | null, fields: Partial<Acquisition> = {}): Acquisition {
  return {
    worker,
    id: 0,
    calledAt: at(calledMs),
    ...(timeoutMs !== null ? { deadlineAt: at(calledMs + timeoutMs) } : {}),
    settledAt: settledMs === null ? null : at(settledMs),
    ...fields,
  };
}
// Slack 1000 + tolerance 500: an acquisition due at D may settle until D + 1500.
const base = { runEnd: at(100_000), slackMs: 1000, toleranceMs: 500 };

describe('checkDeadlines', () => {
  it('passes an acquisition settled by its deadline plus the slack and the tolerance, misses one settled later', () => {
    const r = checkDeadlines({ ...base, acquisitions: [acq('a', 0, 1000, 2500, { code: 'LOCK_TIMEOUT' }), acq('b', 0, 1000, 2501, { code: 'LOCK_TIMEOUT' })] });
    expect(r.checked).toBe(2);
    expect(r.misses).toHaveLength(1);
    expect(r.misses[0]).toMatchObject({ dueBy: 'deadline', outcome: 'rejected', boundAt: at(2500), latenessMs: 1501 });
    expect(r.misses[0]!.acquisition.worker).toBe('b');
    expect(r.worstLatenessMs).toBe(1501);
  });

  it('holds an abort to the abort time when it comes before the deadline, and the deadline when it comes after', () => {
    const early = acq('a', 0, 5000, 2000, { abortedAt: at(200), code: 'ABORTED' });
    const late = acq('b', 0, 1000, 2400, { abortedAt: at(3000), code: 'LOCK_TIMEOUT' });
    const r = checkDeadlines({ ...base, acquisitions: [early, late] });
    expect(r.misses.map((m) => [m.acquisition.worker, m.dueBy, m.latenessMs])).toEqual([['a', 'abort', 1800]]);
  });

  it('counts a grant after the deadline plus the slack as a miss, and one within it not', () => {
    const within = acq('a', 0, 1000, 1900, { grantedAt: at(1890) });
    const after = acq('b', 0, 1000, 2700, { grantedAt: at(2690) });
    const r = checkDeadlines({ ...base, acquisitions: [within, after] });
    expect(r.misses).toHaveLength(1);
    expect(r.misses[0]).toMatchObject({ outcome: 'granted', latenessMs: 1700 });
  });

  it('ignores acquisitions with neither a deadline nor an abort', () => {
    const r = checkDeadlines({ ...base, acquisitions: [acq('a', 0, null, 60_000)] });
    expect(r).toMatchObject({ checked: 0, misses: [], worstLatenessMs: 0 });
  });

  it('moves the bound by the time the process was stopped before it, and only its own pauses count', () => {
    // Due at 1000, settled at 4000: 3000 late, of which the process was stopped 2000 (500-2500).
    const pauses = [{ worker: 'a', start: at(500), end: at(2500) }];
    const own = checkDeadlines({ ...base, pauses, acquisitions: [acq('a', 0, 1000, 4000)] });
    expect(own).toMatchObject({ misses: [], stretchedByPauses: 1, worstLatenessMs: 1000 });
    // Another process's pause excuses nothing.
    const other = checkDeadlines({ ...base, pauses, acquisitions: [acq('b', 0, 1000, 4000)] });
    expect(other.misses).toHaveLength(1);
    expect(other.stretchedByPauses).toBe(0);
  });

  it('takes in a pause that starts inside the moved bound, not one that starts after it (the acquisition was late already)', () => {
    // Bound 2500; the first pause (2000-3000) moves it to 3500, which takes in the second (3400-4400): 4500.
    const chained = [
      { worker: 'a', start: at(2000), end: at(3000) },
      { worker: 'a', start: at(3400), end: at(4400) },
    ];
    expect(checkDeadlines({ ...base, pauses: chained, acquisitions: [acq('a', 0, 1000, 4500)] }).misses).toEqual([]);
    expect(checkDeadlines({ ...base, pauses: chained, acquisitions: [acq('a', 0, 1000, 4501)] }).misses).toHaveLength(1);
    // A pause from 2600 on: the bound (2500) had passed; settling at 4000 is 1500 ms late in running time.
    const after = [{ worker: 'a', start: at(2600), end: at(3600) }];
    const r = checkDeadlines({ ...base, pauses: after, acquisitions: [acq('a', 0, 1000, 4000)] });
    expect(r.misses).toHaveLength(1);
    expect(r.misses[0]).toMatchObject({ boundAt: at(2500), latenessMs: 3000 });
  });

  it('counts an acquisition never settled while its process ran past the bound: until its death, or the end of the run', () => {
    const dead = acq('a', 0, 1000, null);
    const hung = acq('b', 0, 1000, null);
    const diedInTime = acq('c', 0, 1000, null);
    const r = checkDeadlines({ ...base, acquisitions: [dead, hung, diedInTime], deaths: { a: at(5000), c: at(2000) } });
    expect(r.misses.map((m) => [m.acquisition.worker, m.outcome, m.latenessMs])).toEqual([
      ['b', 'unsettled', 99_000],
      ['a', 'unsettled', 4000],
    ]);
  });
});
