import { EventEmitter } from 'eventemitter3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SessionEvents } from '../../src/session/sessionEvents.js';
import type { ZkSessionEvents } from '../../src/session/types.js';

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('SessionEvents (how a ZkSession emits)', () => {
  afterEach(() => vi.restoreAllMocks());

  it('emits later, in a microtask, in the order emitted; `once` listeners once', async () => {
    const emitter = new EventEmitter<ZkSessionEvents>();
    const events = new SessionEvents(emitter);
    const seen: string[] = [];
    emitter.on('state', (s) => seen.push(`state:${s}`));
    emitter.once('connected', () => seen.push('connected(once)'));
    events.transition('connected');
    expect(seen).toEqual([]);
    await Promise.resolve();
    events.transition('suspended');
    events.transition('connected');
    await flush();
    expect(seen).toEqual(['state:connected', 'connected(once)', 'state:suspended', 'state:connected']);
  });

  it('a transition emits `state`, then the event of that name; `lost` carries its reason (a default one if none)', async () => {
    const emitter = new EventEmitter<ZkSessionEvents>();
    const events = new SessionEvents(emitter);
    const reasons: Error[] = [];
    const named: string[] = [];
    emitter.on('lost', (reason) => reasons.push(reason));
    for (const name of ['connected', 'suspended', 'reconnected', 'closed'] as const) emitter.on(name, () => named.push(name));
    const reason = new Error('expired');
    events.transition('lost', reason);
    events.transition('lost');
    events.transition('connecting');
    for (const name of ['connected', 'suspended', 'reconnected', 'closed'] as const) events.transition(name);
    await flush();
    expect(reasons[0]).toBe(reason);
    expect(reasons[1]).toMatchObject({ code: 'SESSION_LOST' });
    expect(named).toEqual(['connected', 'suspended', 'reconnected', 'closed']);
  });

  it('a listener that throws becomes an `error` event; the other listeners still run', async () => {
    const emitter = new EventEmitter<ZkSessionEvents>();
    const events = new SessionEvents(emitter);
    const errors: Error[] = [];
    let after = false;
    emitter.on('connected', () => {
      throw new Error('listener bug');
    });
    emitter.on('connected', () => (after = true));
    emitter.on('error', (err) => errors.push(err));
    events.emit('connected');
    await flush();
    expect(after).toBe(true);
    expect(errors.map((e) => e.message)).toEqual(['listener bug']);
  });

  it('an `error` nobody listens to, or an `error` listener that throws, is a process warning, never an exception', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const emitter = new EventEmitter<ZkSessionEvents>();
    const events = new SessionEvents(emitter);
    events.emit('error', new Error('unheard'));
    await flush();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('unheard'));
    emitter.on('error', () => {
      throw new Error('error listener bug');
    });
    events.emit('error', new Error('heard'));
    await flush();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('error listener bug'));
  });
});
