/**
 * The election on a 3-server ensemble while the ensemble itself fails, four participant
 * processes, each behind fault proxies of its own (one per server, so the test knows which server
 * each one talks to):
 * - the server the leader is connected to is stopped (SIGSTOP) for a session timeout, as a block
 *   between peers would stop it: the leader either keeps its session (it reaches another server
 *   in time) or is told it lost it before anyone else is elected;
 * - the ensemble's own leader is stopped the same way (nothing commits until another is elected);
 * - the ensemble's leader is killed or stopped while participants churn, and a new ensemble leader
 *   is elected under them.
 * In every case no two participants whose leadership signal had not aborted at the same time, a
 * leader again afterwards, and one within the session timeout plus a second of any leader's loss
 * (the second scaled by the machine's measured slowness: a time bound, not leadership).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isZkError, ZkSession } from '@zk-recipes/core';
import { childrenOf, NEMESIS_CLUSTER, TestingCluster, uniqueRoot, untilChildCount, type ClusterMember } from '@zk-recipes/testing';
import { Fleet, type TermRecord } from './support/fleet.js';

const root = uniqueRoot('leader-ensemble');
/**
 * The nemesis's ensemble and session: a follower cut off from its leader answers pings for up to
 * syncLimit × tickTime (200 ms here), which the library's lost margin (a tenth of 3 s) covers.
 */
const SESSION_MS = 3000;
/** A new leader within the session timeout plus a second (an election's work: × the machine's slowness). */
const ELECTED_WITHIN = { fixedMs: SESSION_MS, scaledMs: 1000 };
let cluster: TestingCluster;
let observer: ZkSession;

beforeAll(async () => {
  cluster = await TestingCluster.start(NEMESIS_CLUSTER);
  observer = await ZkSession.connect({ connectString: cluster.connectString, sessionTimeoutMs: 20_000 });
}, 120_000);

afterAll(async () => {
  await observer?.close();
  await cluster?.stop();
});

/** The member a fleet process talks to now (its proxy with an open connection). */
function memberOf(fleet: Fleet, worker: string): ClusterMember | undefined {
  const slot = Number(worker.slice(1, worker.indexOf('.')));
  const index = fleet.proxies[slot]!.findIndex((proxy) => proxy.connectionCount > 0);
  return index < 0 ? undefined : cluster.servers[index];
}

/** Each term that ended with a loss, and the first term granted to another process after it. */
function lossesAndSuccessors(fleet: Fleet): Array<{ lost: TermRecord; next: TermRecord | undefined }> {
  const terms = [...fleet.terms.values()].sort((a, b) => (a.granted < b.granted ? -1 : 1));
  return terms
    .filter((t) => t.abortedAt !== undefined && t.reason !== 'ELECTION_CLOSED' && t.reason !== 'ABORTED')
    .map((lost) => ({ lost, next: terms.find((t) => t.granted > lost.granted && t.worker !== lost.worker) }));
}

/** Waits until `path` has `count` participants (the observer's own connection may drop while a server is stopped). */
async function untilParticipants(path: string, count: number): Promise<void> {
  const deadline = performance.now() + 60_000;
  for (;;) {
    const seen = await childrenOf(observer, path).catch((err: unknown) => {
      if (isZkError(err, 'CONNECTION_LOSS')) return [];
      throw err;
    });
    if (seen.length >= count) return;
    if (performance.now() > deadline) throw new Error(`${path}: fewer than ${count} participants after 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Checks a finished fleet: no overlap, every loss followed by a new leader in time. */
function expectSafeAndLive(fleet: Fleet, runEnd: bigint): void {
  fleet.expectOneLeaderAtATime(runEnd);
  for (const { lost, next } of lossesAndSuccessors(fleet)) {
    if (next === undefined) continue; // its successor is the same process, or the run ended
    fleet.expectWithin(`a new leader (${next.worker}#${next.id}) after ${lost.worker}#${lost.id} lost its term (${lost.reason})`, lost.abortedAt!, next.granted, ELECTED_WITHIN);
  }
}

/**
 * No participant's node left once every process stopped. The observer may read from a follower
 * that applies the closes late (seconds, on a busy machine): wait for it, a session timeout (a
 * close that never reached the server) and two seconds × the machine's slowness at most.
 */
async function expectNoNodeLeft(fleet: Fleet, path: string): Promise<void> {
  const slowness = fleet.load.slowness();
  const boundMs = Math.round(SESSION_MS + 2000 * slowness.factor);
  await untilChildCount(observer, path, 0, boundMs).catch(async (err: unknown) => {
    throw new Error(`node(s) left behind: ${(await childrenOf(observer, path)).join(', ')} still there ${boundMs} ms after every process stopped (3000 ms + 2000 ms × ${slowness.factor.toFixed(1)} slowness)`, { cause: err });
  });
}

describe.each(['latch', 'selector'] as const)('%s on a 3-server ensemble', (recipe) => {
  it.each(['the server the leader is connected to', "the ensemble's leader"] as const)(
    '%s stopped for a session timeout: never two leaders, a leader again afterwards',
    async (which) => {
      const path = `${root}/${recipe}-stall-${which === "the ensemble's leader" ? 'quorum-leader' : 'leaders-server'}`;
      const fleet = await Fleet.start({ connectString: cluster.connectString, path, count: 4, sessionTimeoutMs: SESSION_MS, recipe, proxied: true });
      let runEnd = process.hrtime.bigint();
      try {
        const leader = await fleet.leader();
        await untilParticipants(path, 4);
        const member = which === "the ensemble's leader" ? await cluster.leader() : memberOf(fleet, leader.worker);
        expect(member, fleet.describe()).toBeDefined();
        const stalledAt = process.hrtime.bigint();
        await member!.pause();
        try {
          await new Promise((resolve) => setTimeout(resolve, SESSION_MS));
        } finally {
          await member!.resume();
        }
        // A leader again once the ensemble is whole, and everyone back in the election.
        await untilParticipants(path, 4);
        await fleet.until(() => fleet.openTerms()[0], 30_000, 'a leader after the stall');
        expect(fleet.openTerms()).toHaveLength(1);
        expect(stalledAt).toBeGreaterThan(0n);
      } finally {
        runEnd = await fleet.stop();
      }
      expectSafeAndLive(fleet, runEnd);
    },
    120_000,
  );

  it.each(['kill', 'pause'] as const)(
    "the ensemble's leader fails (%s) while participants churn: never two leaders; leadership keeps moving under the new ensemble leader",
    async (how) => {
      const path = `${root}/${recipe}-fail-${how}`;
      const fleet = await Fleet.start({ connectString: cluster.connectString, path, count: 4, sessionTimeoutMs: SESSION_MS, recipe, proxied: true, churn: [20, 150] });
      let runEnd = process.hrtime.bigint();
      let electedAt = 0n;
      try {
        await fleet.until(() => fleet.terms.size >= 10, 60_000, '10 terms');
        electedAt = await cluster.failLeader(how);
        // Leadership goes on under the new ensemble leader.
        await fleet.until(() => [...fleet.terms.values()].filter((t) => t.granted > electedAt).length >= 10, 60_000, '10 terms after the election');
      } finally {
        runEnd = await fleet.stop();
      }
      expectSafeAndLive(fleet, runEnd);
      expect(electedAt).toBeGreaterThan(0n);
      await expectNoNodeLeft(fleet, path);
    },
    180_000,
  );
});
