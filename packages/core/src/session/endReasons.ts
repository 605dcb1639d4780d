/**
 * Why a generation ended, and the error each of its calls rejects with then: `SESSION_LOST` or
 * `SESSION_CLOSED`, naming the call (docs/errors.md).
 */
import { SessionClosedError, SessionLostError } from '../errors.js';
import { lostMarginMs } from './livenessWatchdog.js';
import type { PendingCall } from './pendingCalls.js';

/** The server told us our session expired. */
export function expiredReason(sessionId: string): SessionLostError {
  return new SessionLostError(`ZooKeeper session 0x${sessionId} expired (the server said so)`);
}

/** No server answered for the session timeout less the margin: it may expire before we hear of it. */
export function noReplyReason(sessionId: string, timeoutMs: number): SessionLostError {
  const margin = lostMarginMs(timeoutMs);
  return new SessionLostError(
    `no reply from any server to a request sent in the last ${timeoutMs - margin} ms ` +
      `(session timeout ${timeoutMs} ms less a ${margin} ms margin): ` +
      `the server may expire session 0x${sessionId} before we could hear of it`,
  );
}

/** The error a call of a lost generation rejects with. */
export function lostCallError(reason: SessionLostError): (call: PendingCall) => Error {
  return (call) =>
    new SessionLostError(`${call.op}${call.path ? ` ${call.path}` : ''}: ${reason.message}`, {
      op: call.op,
      ...(call.path === undefined ? {} : { path: call.path }),
      cause: reason,
    });
}

/** The error a call still pending at `close()` rejects with. */
export function closedCallError(call: PendingCall): Error {
  return new SessionClosedError(`${call.op}${call.path ? ` ${call.path}` : ''}: ZkSession was closed`, {
    op: call.op,
    ...(call.path === undefined ? {} : { path: call.path }),
  });
}
