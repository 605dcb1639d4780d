/**
 * One socket write per burst of requests instead of one per request. node-zookeeper-client 1.1.3
 * calls `socket.write` once per request, each a separate syscall: queueing 10,000 lock waiters
 * spent seconds in `writeBuffer`, and even an uncontended acquire sends its create and its
 * pipelined listing in two writes. Here the frames of a burst are collected, and handed to the
 * socket as one buffer once the current round of callbacks and microtasks is over
 * (`setImmediate`), so all requests issued meanwhile (including listings sent from microtasks, see
 * LockQueue) leave in one write: one `write` call on the socket and one syscall, whatever the
 * number of frames.
 *
 * Back-pressure is kept: once what is collected plus what the socket still buffers reaches the
 * socket's high-water mark, the burst is handed over at once and the socket's own answer (false
 * past the mark) is returned, so the wire client waits for the 'drain' that answer promises.
 * `end()` hands over what is collected first (a retired session's CLOSE_SESSION must leave), and
 * a destroyed socket drops it, as it drops what it buffers itself.
 */
import type { Socket } from 'node:net';
import type { ConnectionManager } from './wire.js';

const BATCHED = Symbol('zk-recipes.writeBatched');

type Write = (chunk: unknown, encoding?: unknown, callback?: unknown) => boolean;

/** Wraps `socket.write` (and `end`) so writes of one burst are coalesced. Idempotent per socket. */
export function batchSocketWrites(socket: Socket): void {
  const marked = socket as Socket & { [BATCHED]?: true };
  if (marked[BATCHED]) return;
  marked[BATCHED] = true;
  const write = socket.write as Write;
  const end = socket.end;
  let frames: Buffer[] = [];
  let bytes = 0;
  let flushScheduled = false;
  /** Hands what was collected to the socket; returns the socket's answer (true when nothing was collected). */
  const handOver = (): boolean => {
    const collected = frames;
    if (collected.length === 0) return true;
    frames = [];
    const data = collected.length === 1 ? collected[0]! : Buffer.concat(collected, bytes);
    bytes = 0;
    if (socket.destroyed) return false;
    return write.call(socket, data);
  };
  const flush = (): void => {
    flushScheduled = false;
    handOver();
  };
  socket.write = function batchedWrite(this: Socket, chunk: unknown, encoding?: unknown, callback?: unknown): boolean {
    // Anything but a plain frame (a callback to call, a string) goes as it comes, after what was collected.
    if (!Buffer.isBuffer(chunk) || encoding !== undefined || callback !== undefined || socket.destroyed) {
      handOver();
      return write.call(this, chunk, encoding, callback);
    }
    frames.push(chunk);
    bytes += chunk.length;
    if (bytes + socket.writableLength >= socket.writableHighWaterMark) return handOver();
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flush);
    }
    return true;
  } as Socket['write'];
  socket.end = function batchedEnd(this: Socket, ...args: unknown[]): Socket {
    handOver();
    return (end as (...a: unknown[]) => Socket).apply(this, args);
  } as Socket['end'];
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
