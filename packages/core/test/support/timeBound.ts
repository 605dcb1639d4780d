/**
 * A time bound in a test, judged against what the machine can do (docs/testing.md, "Time bounds on
 * a busy machine"): the bound's work part is multiplied by the machine's slowness now, and a
 * failure reads "slow: <what> took X ms, over its bound of Y ms (...)", never as a broken lock.
 */
import { expect } from 'vitest';
import { judgeTime, MachineLoad, type TimeBound } from '@zk-recipes/testing';

/** Fails as "slow: ..." when `tookMs` is over `bound` scaled by the machine's slowness now. */
export function expectTimely(what: string, tookMs: number, bound: TimeBound): void {
  const verdict = judgeTime(what, tookMs, bound, MachineLoad.now());
  expect(verdict.tookMs, verdict.message).toBeLessThanOrEqual(verdict.boundMs);
}

/**
 * A bound that tells "at once" from "after a timeout" (a refusal in a second, not after the 10 s
 * connection timeout): it sits between the two with room and is not scaled (scaled, it would stop
 * telling them apart), but its failure says it is a time bound, with the figures.
 */
export function expectSoonerThan(what: string, tookMs: number, boundMs: number): void {
  expect(tookMs, `time bound: ${what} took ${tookMs.toFixed(0)} ms, not under ${boundMs} ms`).toBeLessThan(boundMs);
}
