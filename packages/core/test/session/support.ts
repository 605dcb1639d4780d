/**
 * Test support for the session tests, on top of @zk-recipes/testing: servers with the settings
 * these tests need (short tickTime, container reaping every 100 ms, quota enforcement), the shared
 * integration server, four-letter words, and event waiting.
 */
import {
  TestingCluster,
  TestingServer,
  expireSession,
  firstServerAddress,
  fourLetterWord,
  testConnectString,
  uniqueRoot,
} from '@zk-recipes/testing';
import { ZkSession, type ZkSessionOptionsInput } from '../../src/session/index.js';
import type { ZkSessionEvents } from '../../src/session/types.js';

export { expireSession, uniqueRoot };
export { pollUntil } from '../../../testing/src/observeNodes.js';

/** What the tests need of a server (TestingServer and cluster members both fit). */
export interface ServerHandle {
  readonly port: number;
  readonly connectString: string;
  kill(): Promise<void>;
  restart(): Promise<void>;
  pause(): Promise<void> | void;
  resume(): Promise<void> | void;
  stop(): Promise<void>;
}

/** Resolves with the event's arguments the next time `session` emits it. */
export function nextEvent<E extends keyof ZkSessionEvents>(
  session: ZkSession,
  event: E,
  timeoutMs = 30_000,
): Promise<Parameters<ZkSessionEvents[E]>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no '${String(event)}' within ${timeoutMs} ms`)), timeoutMs);
    session.once(event, ((...args: Parameters<ZkSessionEvents[E]>) => {
      clearTimeout(timer);
      resolve(args);
    }) as never);
  });
}

/** A four-letter word to a loopback server; '' when it does not answer. */
export async function fourLetter(port: number, word: 'srvr' | 'cons' | 'ruok', timeoutMs = 1000): Promise<string> {
  try {
    return await fourLetterWord('127.0.0.1', port, word, timeoutMs);
  } catch {
    return '';
  }
}

export interface ServerOptions {
  tickTimeMs?: number;
  systemProperties?: Record<string, string>;
}

const SYSTEM_PROPERTIES = {
  // Reap empty containers fast (default 60 s) so the CREATE_CONTAINER test can observe it.
  'znode.container.checkIntervalMs': '100',
  // Hard quotas are enforced only with this flag (QUOTA_EXCEEDED = -125, unknown to the wire client).
  'zookeeper.enforceQuota': 'true',
};

function serverSettings(o: ServerOptions): {
  forceSync: false;
  tickTimeMs: number;
  minSessionTimeoutMs: number;
  maxSessionTimeoutMs: number;
  systemProperties: Record<string, string>;
} {
  const tick = o.tickTimeMs ?? 200;
  return {
    forceSync: false,
    tickTimeMs: tick,
    minSessionTimeoutMs: 2 * tick,
    maxSessionTimeoutMs: 20 * tick,
    systemProperties: { ...SYSTEM_PROPERTIES, ...o.systemProperties },
  };
}

/** One standalone server of our own (for faults that must not hit the shared server). */
export async function startServer(o: ServerOptions = {}): Promise<ServerHandle> {
  return TestingServer.start(serverSettings(o));
}

/** A 3-server ensemble. */
export async function startCluster(
  o: ServerOptions = {},
): Promise<{ connectString: string; servers: readonly ServerHandle[]; stop(): Promise<void> }> {
  return TestingCluster.start({ size: 3, ...serverSettings(o) });
}

/**
 * The shared integration server (global setup, or ZK_CONNECT) as host + port of its first
 * server, for tests that put a FaultProxy in front of it.
 */
export function sharedServer(): { connectString: string; host: string; port: number } {
  const connectString = testConnectString();
  return { connectString, ...firstServerAddress(connectString) };
}

/** Which of `servers` currently holds a connection of session `sessionIdHex` (-1: none). */
export async function serverOfSession(servers: readonly ServerHandle[], sessionIdHex: string): Promise<number> {
  const sid = `sid=0x${sessionIdHex.replace(/^0+/, '')}`;
  for (let i = 0; i < servers.length; i++) {
    if ((await fourLetter(servers[i]!.port, 'cons', 500)).includes(sid)) return i;
  }
  return -1;
}

/** How `connect()` ends with these options and a connection timeout, and how long it took. */
export async function failedConnect(connectionTimeoutMs: number, options: ZkSessionOptionsInput): Promise<{ error: unknown; elapsedMs: number }> {
  const started = performance.now();
  const error = await ZkSession.connect({ connectionTimeoutMs, ...options }).then(
    async (session) => {
      await session.close();
      return new Error('connected');
    },
    (err: unknown) => err,
  );
  return { error, elapsedMs: performance.now() - started };
}
