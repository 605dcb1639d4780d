/**
 * The ensemble this repository ships (docker-compose.yml) keeps the rule docs/operations.md states
 * for the session timeout it recommends: a follower cut off from its leader answers pings for up to
 * `syncLimit × tickTime`, which the client's lost margin covers only while it is shorter
 * (docs/operations.md, "Choosing the session timeout"; docs/architecture.md, "When we declare lost").
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { lostMarginMs } from '../../src/session/livenessWatchdog.js';
import { ZK_SESSION_DEFAULTS } from '../../src/session/options.js';

const read = (relative: string) => readFileSync(fileURLToPath(new URL(relative, import.meta.url)), 'utf8');

/** The session timeout docs/operations.md recommends, in ms ("**Recommended: 15 s**"). */
function recommendedSessionTimeoutMs(): number {
  const match = /\*\*Recommended: (\d+) s\*\*/.exec(read('../../../../docs/operations.md'));
  if (match === null) throw new Error('docs/operations.md recommends no session timeout ("**Recommended: <n> s**")');
  return Number(match[1]) * 1000;
}

interface ServerTiming {
  tickTimeMs: number;
  initLimit: number;
  syncLimit: number;
  minSessionTimeoutMs: number;
  maxSessionTimeoutMs: number;
}

/** Each ZooKeeper service's timing, from its environment as the zookeeper image reads it (anchors merged). */
function composeServers(): Map<string, ServerTiming> {
  const compose = parse(read('../../../../docker-compose.yml'), { merge: true }) as {
    services: Record<string, { image?: string; environment?: Record<string, string> }>;
  };
  const servers = new Map<string, ServerTiming>();
  for (const [name, service] of Object.entries(compose.services)) {
    if (service.image?.startsWith('zookeeper:') !== true) continue;
    const env = service.environment ?? {};
    const extra = new Map((env['ZOO_CFG_EXTRA'] ?? '').split(/\s+/).filter(Boolean).map((entry) => entry.split('=') as [string, string]));
    const number = (value: string | undefined, what: string): number => {
      if (value === undefined || !/^\d+$/.test(value)) throw new Error(`${name}: ${what} is ${String(value)}`);
      return Number(value);
    };
    const tickTimeMs = number(env['ZOO_TICK_TIME'], 'ZOO_TICK_TIME');
    servers.set(name, {
      tickTimeMs,
      initLimit: number(env['ZOO_INIT_LIMIT'], 'ZOO_INIT_LIMIT'),
      syncLimit: number(env['ZOO_SYNC_LIMIT'], 'ZOO_SYNC_LIMIT'),
      // ZooKeeper's defaults when zoo.cfg names none: 2 and 20 ticks.
      minSessionTimeoutMs: number(extra.get('minSessionTimeout') ?? String(2 * tickTimeMs), 'minSessionTimeout'),
      maxSessionTimeoutMs: number(extra.get('maxSessionTimeout') ?? String(20 * tickTimeMs), 'maxSessionTimeout'),
    });
  }
  return servers;
}

describe('docker-compose.yml against docs/operations.md', () => {
  const recommended = recommendedSessionTimeoutMs();
  const servers = composeServers();

  it('the docs recommend the default session timeout', () => {
    expect(recommended).toBe(ZK_SESSION_DEFAULTS.sessionTimeoutMs);
  });

  it('is a 3-server ensemble', () => {
    expect([...servers.keys()]).toHaveLength(3);
  });

  it.each([...servers])('%s: syncLimit × tickTime is below the lost margin of the recommended session timeout', (name, server) => {
    const window = server.syncLimit * server.tickTimeMs;
    const margin = lostMarginMs(recommended);
    expect(window, `${name}: syncLimit ${server.syncLimit} × tickTime ${server.tickTimeMs} ms = ${window} ms; the margin of ${recommended} ms sessions is ${margin} ms`).toBeLessThan(margin);
  });

  it.each([...servers])('%s: grants the recommended session timeout as asked', (name, server) => {
    const range = `${name}: sessions of ${server.minSessionTimeoutMs}..${server.maxSessionTimeoutMs} ms, ${recommended} ms recommended`;
    expect(server.minSessionTimeoutMs, range).toBeLessThanOrEqual(recommended);
    expect(server.maxSessionTimeoutMs, range).toBeGreaterThanOrEqual(recommended);
  });

  // The lost rule counts on a follower relaying a session's touch within tickTime / 2, at most a
  // quarter of any session timeout the server grants (docs/architecture.md, "When we declare lost").
  it.each([...servers])('%s: grants no session timeout shorter than two ticks', (name, server) => {
    expect(server.minSessionTimeoutMs, `${name}: minSessionTimeout ${server.minSessionTimeoutMs} ms, tickTime ${server.tickTimeMs} ms`).toBeGreaterThanOrEqual(2 * server.tickTimeMs);
  });

  it.each([...servers])('%s: gives a follower at least 10 s to sync at start (initLimit × tickTime)', (name, server) => {
    expect(server.initLimit * server.tickTimeMs, `${name}: initLimit ${server.initLimit} × tickTime ${server.tickTimeMs} ms`).toBeGreaterThanOrEqual(10_000);
  });
});
