import { describe, expect, it } from 'vitest';
import { Prng } from '../src/nemesis/prng.js';
import { countKinds, ENSEMBLE_FAULTS, FAULT_KINDS, makeSchedule } from '../src/nemesis/schedule.js';

describe('Prng', () => {
  it('replays the same sequence for the same seed, another for another seed', () => {
    const a = new Prng(42);
    const b = new Prng(42);
    const c = new Prng(43);
    const xs = Array.from({ length: 20 }, () => a.next());
    expect(Array.from({ length: 20 }, () => b.next())).toEqual(xs);
    expect(Array.from({ length: 20 }, () => c.next())).not.toEqual(xs);
    for (const x of xs) expect(x >= 0 && x < 1).toBe(true);
  });

  it('int stays within its bounds and reaches both', () => {
    const p = new Prng(7);
    const seen = new Set(Array.from({ length: 500 }, () => p.int(3, 6)));
    expect([...seen].sort()).toEqual([3, 4, 5, 6]);
  });

  it('shuffle is a permutation', () => {
    expect(new Prng(1).shuffle([1, 2, 3, 4, 5]).sort()).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('makeSchedule', () => {
  const options = { seed: 1234, durationMs: 120_000, sessionTimeoutMs: 3000 };

  it('is a function of the seed', () => {
    expect(makeSchedule(options)).toEqual(makeSchedule(options));
    expect(makeSchedule({ ...options, seed: 1235 })).not.toEqual(makeSchedule(options));
  });

  it('draws every kind over a long run, and only the kinds asked for', () => {
    const counts = countKinds(makeSchedule(options).map((s) => s.kind));
    for (const kind of FAULT_KINDS) expect(counts[kind]).toBeGreaterThan(0);
    const only = makeSchedule({ ...options, kinds: ['kill', 'expire'] });
    expect(new Set(only.map((s) => s.kind))).toEqual(new Set(['kill', 'expire']));
  });

  it('keeps pauses clear of the session timeout: short ones within a quarter, long ones past 1.5x', () => {
    const steps = makeSchedule(options);
    for (const s of steps.filter((x) => x.kind === 'pause-short')) expect(s.durationMs).toBeLessThanOrEqual(750);
    for (const s of steps.filter((x) => x.kind === 'pause-long')) expect(s.durationMs).toBeGreaterThanOrEqual(4500);
  });

  it('stalls a server for 0.5-2x the session timeout, aimed at a process\'s server, the leader or any member; needs the ensemble', () => {
    const steps = makeSchedule({ ...options, durationMs: 1_200_000 });
    const stalls = steps.filter((x) => x.kind === 'server-stall');
    expect(stalls.length).toBeGreaterThan(10);
    for (const s of stalls) {
      expect(s.durationMs).toBeGreaterThanOrEqual(1500);
      expect(s.durationMs).toBeLessThanOrEqual(6000);
    }
    // Both sides of the session timeout (a client that must move, and one that can wait it out).
    expect(stalls.some((s) => s.durationMs < 3000) && stalls.some((s) => s.durationMs > 3000)).toBe(true);
    expect(new Set(stalls.map((s) => s.server))).toEqual(new Set(['client', 'leader', 'random']));
    for (const s of steps.filter((x) => x.kind !== 'server-stall')) expect(s.server).toBeUndefined();
    expect(ENSEMBLE_FAULTS).toContain('server-stall');
  });

  it('arms a dropped create for 1-3 s', () => {
    const drops = makeSchedule({ ...options, durationMs: 1_200_000 }).filter((x) => x.kind === 'drop-create');
    expect(drops.length).toBeGreaterThan(10);
    for (const s of drops) {
      expect(s.durationMs).toBeGreaterThanOrEqual(1000);
      expect(s.durationMs).toBeLessThanOrEqual(3000);
    }
  });

  it('starts steps in order within the duration, each after the previous one ended', () => {
    const steps = makeSchedule(options);
    for (let i = 1; i < steps.length; i++) expect(steps[i]!.atMs).toBeGreaterThanOrEqual(steps[i - 1]!.atMs + steps[i - 1]!.durationMs);
    expect(steps.at(-1)!.atMs).toBeLessThan(options.durationMs);
  });
});
