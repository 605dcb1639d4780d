import { describe, expect, it } from 'vitest';
import { AbortedError, LockTimeoutError } from '../../src/errors.js';
import { Deadline } from '../../src/lock/Deadline.js';
import { markSettleBy, SETTLE_SLACK_MS } from '../../src/signals/settleBound.js';

describe('Deadline', () => {
  it('gives no limit without a timeout', () => {
    const deadline = Deadline.start(undefined, 0);
    expect(deadline.remainingMs(1e9)).toBeUndefined();
    expect(deadline.expired(1e9)).toBe(false);
    expect(deadline.isTry).toBe(false);
  });

  it('gives every wait a try (0) when the timeout is 0, however long the tries take', () => {
    const deadline = Deadline.start(0, 100);
    expect(deadline.isTry).toBe(true);
    expect(deadline.remainingMs(100)).toBe(0);
    expect(deadline.remainingMs(500)).toBe(0);
    expect(deadline.expired(500)).toBe(false);
  });

  it('shares one positive timeout across waits and expires when it is used up', () => {
    const deadline = Deadline.start(1000, 100);
    expect(deadline.isTry).toBe(false);
    expect(deadline.remainingMs(100)).toBe(1000);
    expect(deadline.remainingMs(700)).toBe(400);
    expect(deadline.expired(1099)).toBe(false);
    expect(deadline.expired(1100)).toBe(true);
    expect(deadline.remainingMs(2000)).toBe(0);
  });

  it('rounds what is left up to whole milliseconds', () => {
    const deadline = Deadline.start(1000, 0.5);
    expect(deadline.remainingMs(100.25)).toBe(901);
  });

  it('tells when it started and when it passes (for a pause between attempts), nothing to pass without a timeout', () => {
    expect(Deadline.start(1000, 100)).toMatchObject({ startedAt: 100, endsAtMs: 1100 });
    expect(Deadline.start(0, 100)).toMatchObject({ startedAt: 100, endsAtMs: 100 });
    expect(Deadline.start(undefined, 100)).toMatchObject({ startedAt: 100, endsAtMs: undefined });
  });

  it("tells when a failure must have settled by: its stop's mark, an abort found between waits now, else the deadline, plus the slack", () => {
    const marked = new LockTimeoutError('member: not acquired');
    markSettleBy(marked, 400);
    const wrapped = new LockTimeoutError('multi-lock: not acquired', { cause: marked });
    expect(Deadline.start(1000, 100).settleBy(wrapped, 900)).toBe(400 + SETTLE_SLACK_MS);
    // The recipe's own check of the caller's signal between two waits: nothing marked it.
    expect(Deadline.start(undefined, 100).settleBy(new AbortedError('aborted before /b'), 900)).toBe(900 + SETTLE_SLACK_MS);
    expect(Deadline.start(1000, 100).settleBy(new Error('refused'), 900)).toBe(1100 + SETTLE_SLACK_MS);
    expect(Deadline.start(undefined, 100).settleBy(new Error('refused'), 900)).toBeUndefined();
  });
});
