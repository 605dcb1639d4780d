/**
 * One short-lived question to a server on a connection of its own (does this port speak TLS? does
 * it answer in plaintext?), asked while `connect()` waits to say why a connection failed. See
 * `tlsPortProbe.ts` and `plaintextPortProbe.ts`.
 */
import type { Socket } from 'node:net';

/** How long a probe waits for an answer: silence counts as no. */
export const PROBE_TIMEOUT_MS = 2_000;

/**
 * Resolves with the first answer `listen` gives on `socket`; an error, a close or silence until
 * `timeoutMs` count as no. The socket is destroyed either way. `listen` registers its listeners
 * first, so its own reading of an `error` wins.
 */
export function probe<S extends Socket>(socket: S, listen: (socket: S, answer: (yes: boolean) => void) => void, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (answer: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    listen(socket, done);
    socket.once('error', () => done(false));
    socket.once('close', () => done(false));
  });
}
