/**
 * How much slower than an idle machine this one runs, measured, so that a test's time bounds are
 * judged against what the machine can do (docs/testing.md, "Time bounds on a busy machine").
 *
 * A bound such as "a hand-over within a second" holds on a machine that runs each process as soon
 * as it is ready to run. With more runnable tasks than cores, each waits for its turn: a hand-over
 * through three processes (the holder, a server, the waiter) takes longer by about the ratio of
 * runnable tasks to cores. That ratio is the *slowness*: 1 on an idle machine, 10 with 20 tasks
 * runnable on 2 cores. Exclusion and leadership are never judged by it; only how long things took.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';

/** The machine's slowness over an interval, and what it was measured from. */
export interface Slowness {
  /** Runnable tasks per core (the larger of the mean sampled count and the 1-minute load average), at least 1. */
  factor: number;
  /** Mean runnable tasks over the interval (Linux `/proc/loadavg`); the load average where it cannot be read. */
  runnable: number;
  /** The largest 1-minute load average read during the interval. */
  loadAverage: number;
  /** Cores this process may run on. */
  cores: number;
  /** Samples the figures come from (0: read once, when asked). */
  samples: number;
}

interface Sample {
  /** CLOCK_MONOTONIC ns. */
  t: bigint;
  runnable: number;
  loadAverage: number;
}

/** Kept per sampler: an hour at the default interval. */
const MAX_SAMPLES = 14_400;

/** Reads the machine's load now: the instantaneous runnable count on Linux, else the 1-minute average. */
function readLoad(): { runnable: number; loadAverage: number } {
  const loadAverage = loadavg()[0] ?? 0;
  try {
    // "0.52 0.58 0.59 3/465 12345": the fourth field is runnable/total scheduling entities.
    const runnable = Number(readFileSync('/proc/loadavg', 'latin1').split(' ')[3]?.split('/')[0]);
    if (Number.isFinite(runnable)) return { runnable, loadAverage };
  } catch {
    // Not Linux: the load average is all there is.
  }
  return { runnable: loadAverage, loadAverage };
}

/**
 * Samples the machine's load (every 250 ms by default, on an unref'd timer) so that
 * {@link MachineLoad.slowness} can say how loaded it was over any interval since. Start one per
 * test file (or per run) before what it will judge; `stop()` it at the end.
 */
export class MachineLoad {
  private readonly samples: Sample[] = [];
  private readonly timer: NodeJS.Timeout;
  /** Cores this process may run on (`os.availableParallelism()`). */
  readonly cores = availableParallelism();

  private constructor(intervalMs: number) {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  /** Starts sampling now. */
  static start(options: { intervalMs?: number } = {}): MachineLoad {
    return new MachineLoad(options.intervalMs ?? 250);
  }

  /**
   * The slowness from one reading taken now, for a bound judged without a sampler: the runnable
   * tasks at this instant, or the 1-minute load average, whichever is larger (the average covers
   * the minute the measured work ran in).
   */
  static now(): Slowness {
    const { runnable, loadAverage } = readLoad();
    const cores = availableParallelism();
    return { factor: Math.max(1, Math.max(runnable, loadAverage) / cores), runnable, loadAverage, cores, samples: 0 };
  }

  private sample(): void {
    if (this.samples.length >= MAX_SAMPLES) this.samples.shift();
    this.samples.push({ t: process.hrtime.bigint(), ...readLoad() });
  }

  /**
   * The slowness between `from` and `to` (CLOCK_MONOTONIC ns, `process.hrtime.bigint()`; default:
   * since sampling started, until now). Uses the samples taken in the interval, or the one closest
   * to it when none was (a short interval), or a reading taken now.
   */
  slowness(from?: bigint, to?: bigint): Slowness {
    const end = to ?? process.hrtime.bigint();
    let inside = this.samples.filter((s) => (from === undefined || s.t >= from) && s.t <= end);
    if (inside.length === 0) {
      const closest = this.samples.reduce<Sample | undefined>((best, s) => (best === undefined || abs(s.t - end) < abs(best.t - end) ? s : best), undefined);
      inside = closest === undefined ? [{ t: end, ...readLoad() }] : [closest];
    }
    const runnable = inside.reduce((sum, s) => sum + s.runnable, 0) / inside.length;
    const loadAverage = Math.max(...inside.map((s) => s.loadAverage));
    return { factor: Math.max(1, Math.max(runnable, loadAverage) / this.cores), runnable, loadAverage, cores: this.cores, samples: inside.length };
  }

  /**
   * Judges a duration against a bound that scales with the slowness between `from` and `to`
   * (default: since sampling started): see {@link judgeTime}.
   */
  judge(what: string, tookMs: number, bound: TimeBound, from?: bigint, to?: bigint): TimeVerdict {
    return judgeTime(what, tookMs, bound, this.slowness(from, to));
  }

  /** Stops sampling (what was sampled stays readable). */
  stop(): void {
    clearInterval(this.timer);
  }

  /** `using load = MachineLoad.start()`. */
  [Symbol.dispose](): void {
    this.stop();
  }
}

const abs = (x: bigint): bigint => (x < 0n ? -x : x);

/** `×4.2 (8.4 runnable tasks on 2 cores, load average 7.9)`. */
export function describeSlowness(s: Slowness): string {
  return `×${s.factor.toFixed(1)} (${s.runnable.toFixed(1)} runnable tasks on ${s.cores} cores, load average ${s.loadAverage.toFixed(1)})`;
}

/**
 * A time bound in ms, or its two parts: `fixedMs`, what no load changes (a session timeout the
 * server counts, a sleep of the test's own), and `scaledMs`, the work and the waiting for turns
 * (hand-overs, elections, scheduling), which takes longer on a busy machine by its slowness.
 * A plain number is all `scaledMs`.
 */
export type TimeBound =
  | number
  | {
      /** What no load changes, ms (a session timeout the server counts, a sleep of the test's own). */
      fixedMs?: number;
      /** The work and the waiting for turns, ms on an idle machine: multiplied by the slowness. */
      scaledMs: number;
    };

/** A duration judged against a time bound on this machine. */
export interface TimeVerdict {
  /** What took the time ("a new leader after the old one lost its leadership"). */
  what: string;
  /** How long it took, ms. */
  tookMs: number;
  /** The bound on this machine: `fixedMs + scaledMs × slowness`, ms. */
  boundMs: number;
  /** `tookMs <= boundMs`. */
  within: boolean;
  /** The slowness the bound was scaled by. */
  slowness: Slowness;
  /**
   * `slow: <what> took 4365 ms, over its bound of 4000 ms (3000 ms + 1000 ms × 1.0 slowness: ...)`
   * (within the bound: `<what> took ... within ...`): a failure says it is a time bound, with the figures.
   */
  message: string;
}

/**
 * Judges `tookMs` against `bound` scaled by `slowness`. In a test:
 * `expect(v.tookMs, v.message).toBeLessThanOrEqual(v.boundMs)`, so that a failure reads
 * "slow: ..." with the figures, never as a broken exclusion or leadership.
 */
export function judgeTime(what: string, tookMs: number, bound: TimeBound, slowness: Slowness): TimeVerdict {
  const { fixedMs = 0, scaledMs } = typeof bound === 'number' ? { scaledMs: bound } : bound;
  const boundMs = Math.round(fixedMs + scaledMs * slowness.factor);
  const within = tookMs <= boundMs;
  const parts = `${fixedMs > 0 ? `${fixedMs} ms + ` : ''}${scaledMs} ms × ${slowness.factor.toFixed(1)} slowness: ${describeSlowness(slowness)}`;
  const took = `${what} took ${tookMs.toFixed(0)} ms`;
  const message = within ? `${took}, within its bound of ${boundMs} ms (${parts})` : `slow: ${took}, over its bound of ${boundMs} ms (${parts})`;
  return { what, tookMs, boundMs, within, slowness, message };
}
