/**
 * One socket write per burst of requests instead of one per request. node-zookeeper-client 1.1.3
 * calls `socket.write` once per request, each a separate syscall: queueing 10,000 lock waiters
 * spent seconds in `writeBuffer`, and even an uncontended acquire sends its create and its
 * pipelined listing in two writes. Here the socket is corked at the first write of a burst and
 * uncorked once the current round of callbacks and microtasks is over (`setImmediate`), so all
 * requests issued meanwhile (including listings sent from microtasks, see LockQueue) leave in one
 * `writev`. Back-pressure is unchanged: a corked write still returns false past the high-water
 * mark, and the wire client then waits for 'drain' as before.
 */
import type { Socket } from 'node:net';
import type { ConnectionManager } from './wire.js';

const BATCHED = Symbol('zk-recipes.writeBatched');

/** Wraps `socket.write` so writes of one burst are coalesced. Idempotent per socket. */
export function batchSocketWrites(socket: Socket): void {
  const marked = socket as Socket & { [BATCHED]?: true };
  if (marked[BATCHED]) return;
  marked[BATCHED] = true;
  const write = socket.write;
  let flushScheduled = false;
  const flush = (): void => {
    flushScheduled = false;
    if (socket.writableCorked > 0) socket.uncork();
  };
  socket.write = function batchedWrite(this: Socket, ...args: Parameters<Socket['write']>): boolean {
    if (!flushScheduled && !socket.destroyed) {
      flushScheduled = true;
      socket.cork();
      setImmediate(flush);
    }
    return write.apply(this, args);
  } as Socket['write'];
}

/**
 * Installs write batching on every socket `cm` opens. Must run before `cm.connect()` (the wire
 * client binds `onSocketConnected` when it creates a socket). The connect request itself is
 * written before the wrapper is in place, so the handshake is never delayed.
 */
export function installWriteBatching(cm: ConnectionManager): void {
  const original = cm.onSocketConnected;
  cm.onSocketConnected = function onSocketConnectedBatching(this: ConnectionManager): void {
    original.call(this);
    if (this.socket !== undefined) batchSocketWrites(this.socket);
  };
}
