import { fourLetterWord } from './fourLetterWord.js';

/** Host and port of the first server of a connect string (`h1:p1,h2:p2/chroot`; IPv6 in brackets). */
export function firstServerAddress(connectString: string): {
  /** Host name or IP address, without the brackets of an IPv6 one. */
  host: string;
  /** Port. */
  port: number;
} {
  const first = connectString.split('/')[0]!.split(',')[0]!.trim();
  const colon = first.lastIndexOf(':');
  return { host: first.slice(0, colon).replace(/^\[|\]$/g, ''), port: Number(first.slice(colon + 1)) };
}

/**
 * The paths on which the server at `connectString` (its first address) holds a watch for session
 * `sessionId`, read from the server's own watch table (four-letter word `wchp`: each watched path,
 * then the sessions watching it). ZooKeeper 3.8 lists data and exists watches there, not child
 * watches (getChildren's). For tests that a watch given up was really removed from the server.
 */
export async function serverWatchedPaths(connectString: string, sessionId: bigint): Promise<Set<string>> {
  const { host, port } = firstServerAddress(connectString);
  const answer = await fourLetterWord(host, port, 'wchp');
  const paths = new Set<string>();
  let path: string | undefined;
  for (const raw of answer.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('/')) path = line;
    else if (line.startsWith('0x') && path !== undefined && BigInt(line) === sessionId) paths.add(path);
  }
  return paths;
}
