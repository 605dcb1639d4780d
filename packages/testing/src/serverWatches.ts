import { fourLetterWord } from './fourLetterWord.js';

/**
 * The paths on which the server at `connectString` (its first address) holds a watch for session
 * `sessionId`, read from the server's own watch table (four-letter word `wchp`: each watched path,
 * then the sessions watching it). Data, exists and child watches alike: the table does not say
 * which. For tests that a watch given up was really removed from the server.
 */
export async function serverWatchedPaths(connectString: string, sessionId: bigint): Promise<Set<string>> {
  const first = connectString.split('/')[0]!.split(',')[0]!.trim();
  const colon = first.lastIndexOf(':');
  const answer = await fourLetterWord(first.slice(0, colon).replace(/^\[|\]$/g, ''), Number(first.slice(colon + 1)), 'wchp');
  const paths = new Set<string>();
  let path: string | undefined;
  for (const raw of answer.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('/')) path = line;
    else if (line.startsWith('0x') && path !== undefined && BigInt(line) === sessionId) paths.add(path);
  }
  return paths;
}
