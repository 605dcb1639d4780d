/** StopSignal after `close()`: the session's signal carries a SessionClosedError; so does the stop. */
import { describe, expect, it } from 'vitest';
import { StopSignal } from '../../src/signals/StopSignal.js';
import { SessionClosedError, SessionLostError } from '../../src/errors.js';

describe('StopSignal and a closed session', () => {
  it('stops with SESSION_CLOSED when the session signal fires because of close(), whether before or after it was made', () => {
    const session = new AbortController();
    const waiting = new StopSignal({ sessionSignal: session.signal, what: 'lock /a' });
    const closed = new SessionClosedError('ZkSession was closed');
    session.abort(closed);
    expect(waiting.reason).toBeInstanceOf(SessionClosedError);
    expect(waiting.reason).toMatchObject({ code: 'SESSION_CLOSED', cause: closed });
    expect(waiting.reason?.message).toMatch(/lock \/a/);
    const later = new StopSignal({ sessionSignal: session.signal, what: 'lock /b' });
    expect(later.reason).toMatchObject({ code: 'SESSION_CLOSED' });
  });
  it('stays SESSION_LOST for any other reason', () => {
    const session = new AbortController();
    const stop = new StopSignal({ sessionSignal: session.signal, what: 'lock /a' });
    session.abort(new SessionLostError('expired'));
    expect(stop.reason).toMatchObject({ code: 'SESSION_LOST' });
  });
});
