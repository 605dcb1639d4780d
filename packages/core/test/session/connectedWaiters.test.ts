import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ConnectedWaiters, isConnectedState } from '../../src/session/connectedWaiters.js';

describe('ConnectedWaiters (waitForConnected)', () => {
  it('connected and reconnected answer requests; no other state does', () => {
    expect(['connecting', 'connected', 'suspended', 'reconnected', 'lost', 'closed'].filter((s) => isConnectedState(s as never))).toEqual(['connected', 'reconnected']);
  });

  it('resolves at once when connected; otherwise at the next connected state, not before', async () => {
    const waiters = new ConnectedWaiters();
    await waiters.wait('reconnected');
    let resolved = false;
    const waiting = waiters.wait('suspended').then(() => (resolved = true));
    waiters.stateChanged('lost');
    waiters.stateChanged('connecting');
    await Promise.resolve();
    expect(resolved).toBe(false);
    waiters.stateChanged('connected');
    await waiting;
    expect(resolved).toBe(true);
  });

  it('rejects with SESSION_CLOSED when closed, or closed meanwhile', async () => {
    const waiters = new ConnectedWaiters();
    await expect(waiters.wait('closed')).rejects.toMatchObject({ code: 'SESSION_CLOSED', op: 'waitForConnected' });
    const waiting = waiters.wait('lost');
    waiters.stateChanged('closed');
    await expect(waiting).rejects.toMatchObject({ code: 'SESSION_CLOSED' });
  });

  it('rejects with the signal\'s reason on abort (already aborted too)', async () => {
    const waiters = new ConnectedWaiters();
    const controller = new AbortController();
    const waiting = waiters.wait('connecting', controller.signal);
    const reason = new Error('given up');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    await expect(waiters.wait('connecting', AbortSignal.abort('no'))).rejects.toMatchObject({ message: 'aborted', cause: 'no' });
  });

  it('10,000 waiters with one signal put one listener on it (adding one is linear in those it has), and leave none once settled', async () => {
    const waiters = new ConnectedWaiters();
    const shared = new AbortController();
    const own = new AbortController();
    const first = Array.from({ length: 10_000 }, () => waiters.wait('suspended', shared.signal));
    const mine = waiters.wait('suspended', own.signal);
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(1);
    expect(getEventListeners(own.signal, 'abort')).toHaveLength(1);
    waiters.stateChanged('reconnected');
    await Promise.all([...first, mine]);
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(own.signal, 'abort')).toHaveLength(0);
    // Aborted: every waiter of that signal rejects with its reason, the others wait on.
    const second = Array.from({ length: 10_000 }, () => waiters.wait('suspended', shared.signal).then(() => 'connected', (err: unknown) => err));
    const other = waiters.wait('suspended', own.signal);
    const reason = new Error('given up');
    shared.abort(reason);
    expect(new Set(await Promise.all(second))).toEqual(new Set([reason]));
    waiters.stateChanged('connected');
    await other;
    expect(getEventListeners(own.signal, 'abort')).toHaveLength(0);
  });
});
