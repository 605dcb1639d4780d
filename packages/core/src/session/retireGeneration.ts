/**
 * Ending a generation: on `lost` at once (`retireGeneration`), on `close()` after asking the server
 * to close the session (`closeGeneration`). Either way every call of the generation settles and
 * its wire client never writes again (docs/architecture.md, "The session": no call ever hangs).
 */
import type { SessionClosedError, SessionLostError } from '../errors.js';
import type { Generation } from './generation.js';
import type { PendingCall } from './pendingCalls.js';
import { CM_STATES, type ConnectionManager } from './wire.js';

/** How long close() waits for the server to confirm the session close before dropping the socket. */
const CLOSE_WAIT_MS = 2_000;

/**
 * Ends `gen`: aborts its signal with `reason`, rejects its pending calls with `callError`, drops
 * its watches and silences its wire client. Idempotent.
 */
export function retireGeneration(gen: Generation, reason: SessionLostError | SessionClosedError, callError: (call: PendingCall) => Error): void {
  if (gen.retired) return;
  gen.retired = true;
  clearTimeout(gen.connectTimer);
  gen.watches.dropAll();
  gen.abort.abort(reason);
  gen.pending.failAll(callError);
  const cm = gen.cm;
  // No reconnect from here on; a connect already under way is torn down as soon as it opens.
  cm.connect = () => undefined;
  cm.onSocketConnected = function (this: ConnectionManager) {
    this.socket?.destroy();
  };
  // Requests still queued were rejected above: they must never reach a server afterwards (the
  // wire client would write them, on the retired session, when closing).
  cm.packetQueue.queue.length = 0;
  const socket = cm.socket;
  const live = gen.wireConnected && socket !== undefined && socket.writable;
  if (cm.state !== CM_STATES.CLOSED && cm.state !== CM_STATES.CLOSING) {
    try {
      // Queues CLOSE_SESSION; on a live connection the wire client writes it at once.
      gen.client.close();
    } catch {
      // the wire client refuses in odd states; the socket teardown below is what matters
    }
  }
  if (live) {
    // We declared the session lost while its connection still looks writable (e.g. a stall of
    // ours past the deadline, or a server that hears us but whose answers do not reach us):
    // let the CLOSE_SESSION leave, so a server that does hear us ends the session (and deletes
    // its ephemeral nodes) now instead of a session timeout later. Safe: every signal of this
    // generation was aborted above, and nothing else of it is written any more (the queue was
    // emptied, pings stop outside CONNECTED, reconnects are disabled). `end()` hands over the
    // writes still held (writeBatching.ts) and half-closes; the socket is destroyed shortly after in any case.
    socket.end();
    setTimeout(() => socket.destroy(), Math.min(CLOSE_WAIT_MS, Math.floor(cm.sessionTimeout / 3))).unref();
  } else {
    socket?.destroy();
  }
}

/**
 * `close()`'s end of `gen`: everything that waits on it (acquisitions, holders' signals) learns
 * now, with SESSION_CLOSED, that it ends: before the close request can make the server delete our
 * nodes (a waiter seeing its own node go would otherwise report a foreign delete), and not as a
 * session loss. Calls already sent still get their replies; the rest reject with `callError`.
 */
export async function closeGeneration(gen: Generation, reason: SessionClosedError, callError: (call: PendingCall) => Error): Promise<void> {
  gen.abort.abort(reason);
  if (gen.wireConnected) {
    // Queue CLOSE_SESSION behind the calls already sent; they get their replies first.
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.min(CLOSE_WAIT_MS, gen.cm.sessionTimeout));
      gen.cm.on('state', (s) => {
        if (s === CM_STATES.CLOSED) {
          clearTimeout(timer);
          resolve();
        }
      });
      gen.client.close();
    });
  }
  retireGeneration(gen, reason, callError);
}
