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
});
