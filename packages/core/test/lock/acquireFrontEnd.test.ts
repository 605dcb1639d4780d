import { describe, expect, it } from 'vitest';
import { currentFrame, OwnerFrame } from '../../src/context/ownerContext.js';
import { AbortedError, isZkError, LockTimeoutError, ZooKeeperError } from '../../src/errors.js';
import { acquireOptionsBySchema, acquireVia, parseAcquireOptions, tryAcquireVia, withLockVia, type AcquireSource, type AcquireStep } from '../../src/lock/acquireFrontEnd.js';
import { MAX_TIMER_MS } from '../../src/retry/timerLimit.js';
import type { AcquireOptions } from '../../src/lock/acquireFrontEnd.js';

/** What the acquire channel would say about these acquisitions. */
const SOURCE: AcquireSource = { recipe: 'mutex', path: '/locks/unit', sessionId: () => '0000000000000000' };

/** A handle whose release can be made to fail, as the server refusing the delete would. */
class FakeHandle {
  held = true;
  refuse: Error | undefined;
  async release(): Promise<void> {
    if (this.refuse !== undefined) throw this.refuse;
    this.held = false;
  }
}

/** A step that records the options it was started with and grants (or fails) as told. */
function stepThat(outcome: () => Promise<FakeHandle>, frame?: OwnerFrame): { step: AcquireStep<FakeHandle>; seen: AcquireOptions[] } {
  const seen: AcquireOptions[] = [];
  return { seen, step: (options) => (seen.push(options), { frame, granted: outcome() }) };
}

describe('parseAcquireOptions', () => {
  it('accepts exactly what the schema accepts, giving what it gives (plain objects skip the schema)', () => {
    class Options {
      timeoutMs = 5;
    }
    const inherited = Object.create({ timeoutMs: 5 }) as object;
    const signal = new AbortController().signal;
    const values = {
      timeoutMs: [undefined, 0, -0, 1, 1.5, MAX_TIMER_MS, MAX_TIMER_MS + 1, -1, Number.NaN, Infinity, '5', null],
      signal: [undefined, signal, AbortSignal.abort(), {}, null],
      onRevoke: [undefined, () => undefined, 'f', null],
    };
    const inputs: unknown[] = [undefined, null, 5, 'x', [], {}, new Options(), inherited, { bogus: 1 }, { timeoutMs: 1, extra: undefined }, { [Symbol('s')]: 1 }];
    for (const timeoutMs of values.timeoutMs) for (const s of values.signal) for (const onRevoke of values.onRevoke) inputs.push({ timeoutMs, signal: s, onRevoke });
    for (const t of values.timeoutMs) inputs.push({ timeoutMs: t });
    for (const input of inputs) {
      const oracle = input === undefined ? { success: true as const, data: {} } : acquireOptionsBySchema(input);
      let parsed: unknown;
      let threw = false;
      try {
        parsed = parseAcquireOptions(input, 'Lock.acquire');
      } catch (err) {
        expect(isZkError(err, 'INVALID_ARGUMENT')).toBe(true);
        threw = true;
      }
      expect(!threw, String(JSON.stringify(input) ?? input)).toBe(oracle.success);
      if (oracle.success) expect(parsed, String(JSON.stringify(input) ?? input)).toStrictEqual(oracle.data);
    }
  });
});

describe('acquireVia', () => {
  it('rejects invalid options (INVALID_ARGUMENT naming the call) without starting the step', async () => {
    const { step, seen } = stepThat(() => Promise.resolve(new FakeHandle()));
    const attempt = acquireVia(step, { timeoutMs: -1 }, 'Lock.acquire', SOURCE);
    await expect(attempt).rejects.toSatisfy((err) => isZkError(err, 'INVALID_ARGUMENT') && /Lock\.acquire/.test((err as Error).message));
    await expect(acquireVia(step, { bogus: 1 }, 'Lock.acquire', SOURCE)).rejects.toSatisfy((err) => isZkError(err, 'INVALID_ARGUMENT'));
    expect(seen).toEqual([]);
  });

  it('passes the options on as given: no default timeout', async () => {
    const { step, seen } = stepThat(() => Promise.resolve(new FakeHandle()));
    await acquireVia(step, undefined, 'Lock.acquire', SOURCE);
    const signal = new AbortController().signal;
    await acquireVia(step, { timeoutMs: 5, signal }, 'Lock.acquire', SOURCE);
    expect(seen).toEqual([{}, { timeoutMs: 5, signal }]);
  });

  it('rejects with what the step threw', async () => {
    const thrown = new Error('refused at once');
    const step: AcquireStep<FakeHandle> = () => {
      throw thrown;
    };
    await expect(acquireVia(step, {}, 'Lock.acquire', SOURCE)).rejects.toBe(thrown);
  });

  it('makes the code after `await acquire()` run in the step\'s frame, and only that code', async () => {
    const frame = new OwnerFrame(currentFrame());
    const { step } = stepThat(() => Promise.resolve(new FakeHandle()), frame);
    const before = currentFrame();
    const sibling = (async () => {
      await Promise.resolve();
      return currentFrame();
    })();
    await acquireVia(step, {}, 'Lock.acquire', SOURCE);
    expect(currentFrame()).toBe(frame);
    expect(await sibling).toBe(before);
  });
});

describe('tryAcquireVia', () => {
  it('defaults the timeout to 0 and keeps a given one', async () => {
    const { step, seen } = stepThat(() => Promise.resolve(new FakeHandle()));
    await tryAcquireVia(step, undefined, 'Lock.tryAcquire', SOURCE);
    await tryAcquireVia(step, { timeoutMs: 250 }, 'Lock.tryAcquire', SOURCE);
    expect(seen.map((options) => options.timeoutMs)).toEqual([0, 250]);
  });

  it('resolves LOCK_TIMEOUT to null, with or without a frame, and rejects every other failure', async () => {
    const timeout = () => Promise.reject(new LockTimeoutError('not free'));
    expect(await tryAcquireVia(stepThat(timeout).step, {}, 'Lock.tryAcquire', SOURCE)).toBeNull();
    expect(await tryAcquireVia(stepThat(timeout, new OwnerFrame(undefined)).step, {}, 'Lock.tryAcquire', SOURCE)).toBeNull();
    const aborted = new AbortedError('aborted');
    await expect(tryAcquireVia(stepThat(() => Promise.reject(aborted)).step, {}, 'Lock.tryAcquire', SOURCE)).rejects.toBe(aborted);
    await expect(tryAcquireVia(stepThat(() => Promise.reject(aborted), new OwnerFrame(undefined)).step, {}, 'Lock.tryAcquire', SOURCE)).rejects.toBe(aborted);
    await expect(tryAcquireVia(stepThat(timeout).step, { timeoutMs: 'soon' }, 'Lock.tryAcquire', SOURCE)).rejects.toSatisfy((err) => isZkError(err, 'INVALID_ARGUMENT'));
  });
});

describe('withLockVia', () => {
  it('runs fn with the handle and releases it, returning what fn returned', async () => {
    const handle = new FakeHandle();
    const result = await withLockVia(Promise.resolve(handle), (h) => (expect(h.held).toBe(true), 42), 'Lock.withLock /x', (h) => h.held);
    expect(result).toBe(42);
    expect(handle.held).toBe(false);
  });

  it('releases when fn throws and rejects with what it threw', async () => {
    const handle = new FakeHandle();
    const thrown = new Error('fn failed');
    await expect(withLockVia(Promise.resolve(handle), () => Promise.reject(thrown), 'Lock.withLock /x', (h) => h.held)).rejects.toBe(thrown);
    expect(handle.held).toBe(false);
  });

  it('does not run fn when the acquisition fails', async () => {
    let ran = false;
    const timeout = new LockTimeoutError('not acquired');
    await expect(withLockVia(Promise.reject<FakeHandle>(timeout), () => (ran = true), 'Lock.withLock /x', (h) => h.held)).rejects.toBe(timeout);
    expect(ran).toBe(false);
  });

  it('rejects with RELEASE_FAILED carrying the handle and what fn threw when the release is refused', async () => {
    const handle = new FakeHandle();
    handle.refuse = new ZooKeeperError('NO_AUTH', -102, 'no DELETE for us');
    const thrown = new Error('fn failed');
    const attempt = withLockVia(Promise.resolve(handle), () => Promise.reject(thrown), 'Lock.withLock /x', (h) => h.held);
    await expect(attempt).rejects.toMatchObject({ code: 'RELEASE_FAILED', handle, error: handle.refuse, suppressed: thrown });
    expect(handle.held).toBe(true);
  });
});
