/**
 * Leader election across OS processes with churn: 8 processes, each with its own session, whose
 * leaders resign after a short term (a latch closes and a new one joins; a selector's function
 * returns and it requeues). Every term is recorded by its process from its grant to the earlier of
 * its signal aborting and its giving up; the overlap checker must find no two at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZkSession } from '@zk-recipes/core';
import { childrenOf, handoffGaps, testConnectString, uniqueRoot } from '@zk-recipes/testing';
import { Fleet, msBetween, type TermRecord } from './support/fleet.js';

const root = uniqueRoot('leader-processes');
let observer: ZkSession;

beforeAll(async () => {
  observer = await ZkSession.connect({ connectString: testConnectString() });
});
afterAll(async () => {
  await observer.close();
});

/** Terms in grant order. */
const inOrder = (terms: Iterable<TermRecord>): TermRecord[] => [...terms].sort((a, b) => (a.granted < b.granted ? -1 : a.granted > b.granted ? 1 : 0));

describe.each(['latch', 'selector'] as const)('%s: 8 processes with churn', (recipe) => {
  it(
    'one leader at a time; leadership moves between processes; fencing tokens grow with every new leader; no leaderless gap over a second',
    async () => {
      const path = `${root}/${recipe}`;
      const fleet = await Fleet.start({ connectString: testConnectString(), path, count: 8, sessionTimeoutMs: 4000, recipe, churn: [20, 80] });
      let runEnd: bigint;
      try {
        await fleet.until(() => [...fleet.terms.values()].filter((t) => t.end !== null).length >= 60, 120_000, '60 terms');
      } finally {
        runEnd = await fleet.stop();
      }
      fleet.expectOneLeaderAtATime(runEnd);
      const terms = inOrder(fleet.terms.values());
      // Every term ended by resigning or stopping, none by a loss.
      expect(terms.filter((t) => t.end === null || t.reason !== undefined), `LEADERSHIP LOST with no fault acting (or a term never ended)\n${fleet.describe()}`).toEqual([]);
      // Leadership really moved: most processes led, and most hand-overs crossed processes.
      expect(new Set(terms.map((t) => t.worker)).size).toBeGreaterThanOrEqual(6);
      const intervals = terms.map((t) => ({ worker: t.worker, start: t.granted, end: t.end! }));
      const crossings = handoffGaps(intervals).filter((h) => h.from !== h.to);
      expect(crossings.length).toBeGreaterThan(30);
      // Tokens grow with every new leader, in grant order.
      for (let i = 1; i < terms.length; i++) expect(terms[i]!.token, fleet.describe()).toBeGreaterThan(terms[i - 1]!.token);
      // A hand-over is a delete and a notification: well under a second on an idle machine (a time
      // bound: scaled by the machine's slowness over the hand-over).
      const handovers = terms.slice(1).map((next, i) => ({ from: terms[i]!, next }));
      const longest = handovers.reduce((a, b) => (b.next.granted - b.from.end! > a.next.granted - a.from.end! ? b : a));
      fleet.expectWithin(`the longest hand-over, ${longest.from.worker}#${longest.from.id} to ${longest.next.worker}#${longest.next.id}`, longest.from.end!, longest.next.granted, 1000);
      expect(msBetween(terms[0]!.granted, terms.at(-1)!.granted)).toBeGreaterThan(0);
      expect(await childrenOf(observer, path)).toEqual([]);
    },
    180_000,
  );
});
