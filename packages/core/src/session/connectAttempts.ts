/**
 * What became of each connection the wire client opens while `connect()` waits for the first
 * session, server by server: so that `connect()` can give up at once when every server is
 * unreachable, and otherwise say, at its timeout, what each server did (docs/errors.md,
 * "Connecting"). Sockets opened once a session exists are not watched: reconnecting is the wire
 * client's business as before, however often a server refuses (a restarting server does).
 */
import type { Socket } from 'node:net';
import type { ConnectionManager } from './wire.js';

/** How far the latest connection to one server got. */
export type AttemptState =
  /** Opened; the server has not accepted the TCP connection (yet). */
  | { readonly phase: 'connecting' }
  /** The server accepted the TCP connection and has sent nothing back (yet). */
  | { readonly phase: 'accepted' }
  /** The server sent bytes. */
  | { readonly phase: 'answered' }
  /** The server closed the connection before sending a byte. */
  | { readonly phase: 'closed' }
  /** The socket failed: Node's error (`ENOTFOUND`, `ECONNREFUSED`, `ECONNRESET`...). */
  | { readonly phase: 'failed'; readonly error: Error };

/** The parts of 1.1.3's ConnectionManager (lib/ConnectionManager.js) that open a connection. */
interface FindingManager extends ConnectionManager {
  findNextServer(callback: (server: { host: string; port: number | string }) => void): void;
}

/**
 * Reports, while `watching()` holds, what becomes of every connection `cm` opens, by the server's
 * `host:port` as the connect string names it. Works for plaintext and TLS connections alike: both
 * open their socket inside `findNextServer`'s callback. Must run before `cm.connect()`.
 */
export function watchConnectAttempts(cm: ConnectionManager, watching: () => boolean, report: (address: string, state: AttemptState) => void): void {
  const manager = cm as FindingManager;
  const findNextServer = manager.findNextServer;
  manager.findNextServer = function findNextServerWatched(this: FindingManager, callback): void {
    findNextServer.call(this, (server) => {
      callback(server);
      const socket = this.socket;
      if (socket !== undefined && watching()) watchAttempt(socket, `${server.host}:${server.port}`, watching, report);
    });
  };
}

function watchAttempt(socket: Socket, address: string, watching: () => boolean, report: (address: string, state: AttemptState) => void): void {
  let answered = false;
  const tell = (state: AttemptState): void => {
    if (watching()) report(address, state);
  };
  tell({ phase: 'connecting' });
  socket.once('connect', () => tell({ phase: 'accepted' }));
  socket.once('data', () => {
    answered = true;
    tell({ phase: 'answered' });
  });
  socket.once('end', () => {
    if (!answered) tell({ phase: 'closed' });
  });
  socket.once('error', (error: Error) => tell({ phase: 'failed', error }));
}
