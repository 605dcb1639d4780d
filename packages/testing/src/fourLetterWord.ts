import { connect } from 'node:net';

/** The ZooKeeper four-letter-word commands the helpers use (all whitelisted by our servers). */
export type FourLetterWord = 'srvr' | 'mntr' | 'cons' | 'dump' | 'stat' | 'ruok' | 'conf' | 'envi' | 'wchs' | 'wchp';

/**
 * Sends a four-letter word to a ZooKeeper server and resolves with its whole answer (the server
 * closes the connection after answering). Rejects on connection errors or after `timeoutMs`.
 */
export function fourLetterWord(host: string, port: number, word: FourLetterWord, timeoutMs = 2_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`${word} to ${host}:${port}: no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('connect', () => socket.end(word));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('close', (hadError) => {
      clearTimeout(timer);
      if (!hadError) resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}

/** The `Mode:` line of a `srvr` answer (`standalone`, `leader`, `follower`), or null when not serving. */
export function parseMode(srvr: string): string | null {
  return /^Mode: (\S+)/m.exec(srvr)?.[1] ?? null;
}
