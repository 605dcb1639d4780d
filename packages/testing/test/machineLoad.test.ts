import { describe, expect, it } from 'vitest';
import { judgeTime, MachineLoad, type Slowness } from '../src/machineLoad.js';

const busy: Slowness = { factor: 4, runnable: 8, loadAverage: 7.5, cores: 2, samples: 12 };
const idle: Slowness = { factor: 1, runnable: 0.5, loadAverage: 0.2, cores: 2, samples: 12 };

describe('judgeTime', () => {
  it('scales the work part of a bound by the slowness and keeps the fixed part', () => {
    const v = judgeTime('a new leader', 6500, { fixedMs: 3000, scaledMs: 1000 }, busy);
    expect([v.boundMs, v.within]).toEqual([7000, true]);
    expect(v.message).toBe('a new leader took 6500 ms, within its bound of 7000 ms (3000 ms + 1000 ms × 4.0 slowness: ×4.0 (8.0 runnable tasks on 2 cores, load average 7.5))');
  });

  it('a duration over its bound reads "slow:" with the figures, the machine measured included', () => {
    const v = judgeTime('a new leader', 4365, { fixedMs: 3000, scaledMs: 1000 }, idle);
    expect([v.boundMs, v.within]).toEqual([4000, false]);
    expect(v.message).toBe('slow: a new leader took 4365 ms, over its bound of 4000 ms (3000 ms + 1000 ms × 1.0 slowness: ×1.0 (0.5 runnable tasks on 2 cores, load average 0.2))');
  });

  it('a plain number is all work', () => {
    expect(judgeTime('a hand-over', 900, 1000, busy).boundMs).toBe(4000);
    expect(judgeTime('a hand-over', 900, 1000, idle).boundMs).toBe(1000);
  });
});

describe('MachineLoad', () => {
  it('measures at least 1 (an idle machine) and says from how many samples', async () => {
    using load = MachineLoad.start({ intervalMs: 10 });
    const from = process.hrtime.bigint();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const s = load.slowness(from);
    expect(s.factor).toBeGreaterThanOrEqual(1);
    expect(s.cores).toBeGreaterThan(0);
    expect(s.samples).toBeGreaterThan(0);
    expect(s.factor).toBeCloseTo(Math.max(1, Math.max(s.runnable, s.loadAverage) / s.cores), 10);
  });

  it('an interval with no sample in it takes the closest one', () => {
    using load = MachineLoad.start({ intervalMs: 60_000 });
    const later = process.hrtime.bigint() + 1_000_000n;
    expect(load.slowness(later, later).samples).toBe(1);
  });
});

describe('MachineLoad.now', () => {
  it('reads the load once: at least 1, from no sample', () => {
    const s = MachineLoad.now();
    expect(s.factor).toBeGreaterThanOrEqual(1);
    expect(s.samples).toBe(0);
    expect(s.factor).toBeCloseTo(Math.max(1, Math.max(s.runnable, s.loadAverage) / s.cores), 10);
  });
});
