import diagnostics from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import { currentFrame, OwnerFrame } from '../../src/context/ownerContext.js';
import { ACQUIRE_CHANNEL, type AcquireContext } from '../../src/diagnostics/channels.js';
import { LockTimeoutError } from '../../src/errors.js';
import { acquireVia, tryAcquireVia, type AcquireSource, type AcquireStep } from '../../src/lock/acquireFrontEnd.js';

const SOURCE: AcquireSource = { recipe: 'mutex', path: '/locks/unit', sessionId: () => '00000000000000aa' };
const handle = { path: '/locks/unit/_c_x-lock-0000000001', fencingToken: 7n, held: true, release: async () => undefined };

/** Every event of the acquire channel, as `<event> <outcome>` with its context. */
function listen(): { events: string[]; contexts: AcquireContext[]; stop: () => void } {
  const events: string[] = [];
  const contexts: AcquireContext[] = [];
  const on = (name: string) => (context: AcquireContext) => {
    events.push(`${name}${context.outcome === undefined ? '' : ` ${context.outcome}`}`);
    if (!contexts.includes(context)) contexts.push(context);
  };
  const subscribers = { start: on('start'), end: on('end'), asyncStart: on('asyncStart'), asyncEnd: on('asyncEnd'), error: on('error') };
  const channel = diagnostics.tracingChannel<AcquireContext, AcquireContext>(ACQUIRE_CHANNEL);
  channel.subscribe(subscribers);
  return { events, contexts, stop: () => channel.unsubscribe(subscribers) };
}

let stop: (() => void) | undefined;
afterEach(() => stop?.());

describe('the acquire trace around the front-end', () => {
  it('a grant: start, end, asyncStart, asyncEnd on one context with the node, token and wait', async () => {
    const trace = listen();
    stop = trace.stop;
    const step: AcquireStep<typeof handle> = () => ({ granted: Promise.resolve(handle) });
    await acquireVia(step, { timeoutMs: 100 }, 'Lock.acquire', SOURCE);
    expect(trace.events).toEqual(['start', 'end', 'asyncStart granted', 'asyncEnd granted']);
    expect(trace.contexts).toHaveLength(1);
    expect(trace.contexts[0]).toMatchObject({ recipe: 'mutex', path: '/locks/unit', kind: 'lock', sessionId: '00000000000000aa', timeoutMs: 100, node: handle.path, fencingToken: 7n });
    expect(trace.contexts[0]!.waitMs).toBeGreaterThanOrEqual(0);
  });

  it("keeps the holder's frame: the code after `await acquire()` is the holder while someone subscribes", async () => {
    const trace = listen();
    stop = trace.stop;
    const frame = new OwnerFrame(currentFrame());
    const step: AcquireStep<typeof handle> = () => ({ frame, granted: Promise.resolve(handle) });
    await acquireVia(step, {}, 'Lock.acquire', SOURCE);
    expect(currentFrame()).toBe(frame);
  });

  it('tryAcquire with no room: outcome timeout and no error event; acquire: an error event', async () => {
    const trace = listen();
    stop = trace.stop;
    const step: AcquireStep<typeof handle> = () => ({ granted: Promise.reject(new LockTimeoutError('not free')) });
    expect(await tryAcquireVia(step, {}, 'Lock.tryAcquire', SOURCE)).toBeNull();
    expect(trace.events).toEqual(['start', 'end', 'asyncStart timeout', 'asyncEnd timeout']);
    expect(trace.contexts[0]!.timeoutMs).toBe(0);
    trace.events.length = 0;
    await expect(acquireVia(step, { timeoutMs: 5 }, 'Lock.acquire', SOURCE)).rejects.toThrow(LockTimeoutError);
    expect(trace.events).toEqual(['start', 'end', 'error timeout', 'asyncStart timeout', 'asyncEnd timeout']);
    expect(trace.contexts[1]!.error).toBeInstanceOf(LockTimeoutError);
  });

  it('a step that throws: start, error, end (failed)', async () => {
    const trace = listen();
    stop = trace.stop;
    const step: AcquireStep<typeof handle> = () => {
      throw new Error('refused at once');
    };
    await expect(acquireVia(step, {}, 'Lock.acquire', SOURCE)).rejects.toThrow('refused at once');
    expect(trace.events).toEqual(['start', 'error failed', 'end failed']);
  });
});
