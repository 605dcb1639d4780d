import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Where the OS takes the local ports of outgoing connections (Linux). A port it hands a server
 * from that range may be taken as the source port of any connection before the JVM binds it; with
 * two test runs side by side, hundreds of loopback connections make that likely enough to kill a
 * quorum peer whose election port went. So servers get ports below the range.
 */
const EPHEMERAL_RANGE_FILE = '/proc/sys/net/ipv4/ip_local_port_range';
/** The lowest port handed out; below it lie the well-known services' ports. */
const LOWEST_PORT = 10_000;
/** Random picks tried before letting the OS choose. */
const PICKS = 50;

/** The ports below the ephemeral range, or `undefined` where that range is unknown or too low. */
function portsBelowEphemeralRange(): { low: number; high: number } | undefined {
  try {
    const [ephemeralLow] = readFileSync(EPHEMERAL_RANGE_FILE, 'utf8').trim().split(/\s+/).map(Number);
    if (ephemeralLow === undefined || !Number.isInteger(ephemeralLow) || ephemeralLow - LOWEST_PORT < 1_000) return undefined;
    return { low: LOWEST_PORT, high: ephemeralLow - 1 };
  } catch {
    return undefined;
  }
}

/** Binds `port` on loopback (0: the OS picks) and closes it; resolves with the port, or `undefined` if it is taken. */
function tryPort(port: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', (err: NodeJS.ErrnoException) => {
      if (port !== 0 && (err.code === 'EADDRINUSE' || err.code === 'EACCES')) resolve(undefined);
      else reject(err);
    });
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * A loopback TCP port that was free a moment ago, below the OS's range of outgoing ports where
 * there is one. Another process may still take it before the JVM binds; the server start-up
 * retries with new ports when that happens.
 */
export async function freePort(): Promise<number> {
  const range = portsBelowEphemeralRange();
  if (range !== undefined) {
    for (let pick = 0; pick < PICKS; pick++) {
      const port = await tryPort(range.low + Math.floor(Math.random() * (range.high - range.low + 1)));
      if (port !== undefined) return port;
    }
  }
  return (await tryPort(0))!;
}

/** `count` distinct free loopback ports. */
export async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}
