import { describe, expect, it } from 'vitest';
import { installErrorTally } from '../src/errorTally.js';

const tally = installErrorTally();

describe('installErrorTally', () => {
  it('counts every construction of Error and of classes defined after it, by name', () => {
    class LaterError extends Error {}
    const mark = tally.counts();
    void new Error('a');
    void Error('b'); // called without new: builds one too
    void new LaterError('c');
    void new TypeError('d'); // defined before installation: not counted
    expect(tally.since(mark)).toEqual({ total: 3, byName: { Error: 2, LaterError: 1 } });
    expect(tally.covers(LaterError)).toBe(true);
    expect(tally.covers(TypeError)).toBe(false);
  });

  it('keeps errors what they were: instanceof, stack, name', () => {
    class LaterError extends Error {}
    const e = new LaterError('x');
    expect(e).toBeInstanceOf(Error);
    expect(e).toBeInstanceOf(LaterError);
    expect(new Error('y')).toBeInstanceOf(Error);
    expect(e.stack).toMatch(/^Error: x\n\s+at .*errorTally\.test\.ts/);
  });

  it('counts Error.captureStackTrace, aborts without a reason and DOMExceptions', () => {
    const mark = tally.counts();
    const target = {};
    Error.captureStackTrace(target);
    new AbortController().abort();
    new AbortController().abort(new RangeError('reason given')); // the reason is the caller's object
    void AbortSignal.abort();
    void new DOMException('m', 'AbortError');
    expect(tally.since(mark).byName).toEqual({ 'captureStackTrace:Object': 1, AbortError: 2, DOMException: 1 });
  });

  it('records where each error was built while asked to', () => {
    tally.recordStacks(true);
    const before = tally.sites().length;
    void new Error('here');
    tally.recordStacks(false);
    void new Error('not recorded');
    const sites = tally.sites().slice(before);
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({ name: 'Error', message: 'here' });
    expect(sites[0]!.stack).toContain('errorTally.test.ts');
  });
});
