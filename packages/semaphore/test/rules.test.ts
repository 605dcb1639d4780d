import { decideWithHints, sortedChildren, type HintedDecision, type OrderingRule, type QueueEntry } from '@zk-recipes/core/recipe-kit';
import { describe, expect, it } from 'vitest';
import { leaseKind, weightOfKind } from '../src/leaseKinds.js';
import { curatorCountRule, failInsteadOfWaiting, leaseQueueRule, MAX_WATCHED_NODES } from '../src/rules.js';

const GUID = '0f6c3e2a-1b2c-4d5e-8f90-123456789abc';
/** Builds a lease queue from weights: node i has sequence i. */
function queueOf(weights: number[]) {
  return sortedChildren(weights.map((w, i) => `_c_${GUID}-${leaseKind(w)}${String(i).padStart(10, '0')}`));
}
/**
 * The decision the engine acts on (the rule's outcome with its hints), after checking that the
 * pure `decide` gives that very outcome.
 */
function hinted(rule: OrderingRule) {
  return (queue: readonly QueueEntry[], ownIndex: number): HintedDecision => {
    const decision = decideWithHints(rule, queue, ownIndex);
    const outcome = rule.decide(queue, ownIndex);
    const { lastObstacle: _, ...outcomeFields } = decision as HintedDecision & { lastObstacle?: boolean };
    expect(outcome).toStrictEqual(outcomeFields);
    return decision;
  };
}
function decide(weights: number[], own: number, max: number): HintedDecision {
  return hinted(leaseQueueRule(() => max))(queueOf(weights), own);
}
/** The names of the first `n` nodes of the queue built from `weights`. */
function namesAhead(weights: number[], n: number): string[] {
  return queueOf(weights).slice(0, n).map((entry) => entry.name);
}

describe('lease kinds', () => {
  it('round-trips weights through node kinds, as sortedChildren parses them', () => {
    for (const w of [1, 2, 3, 17, 999_999_999]) {
      const [entry] = sortedChildren([`_c_${GUID}-${leaseKind(w)}0000000042`]);
      expect(entry!.sequence).toBe(42);
      expect(weightOfKind(entry!.kind)).toBe(w);
    }
    expect(leaseKind(1)).toBe('lease-');
  });
  it('keeps the weight when the sequence is large or wrapped negative', () => {
    const [big] = sortedChildren([`_c_${GUID}-lease-w3-1500000000`]);
    expect(big).toMatchObject({ sequence: 1_500_000_000, kind: 'lease-w3-' });
    const [wrapped] = sortedChildren([`_c_${GUID}-lease-w3--000000005`]);
    expect(wrapped).toMatchObject({ sequence: -5, kind: 'lease-w3-' });
  });
  it('does not read other kinds as leases', () => {
    expect(weightOfKind('lock-')).toBeNull();
    expect(weightOfKind('lease-w0-')).toBeNull();
    expect(weightOfKind('lease-wx-')).toBeNull();
  });
});

/** The names of the nodes from index `from` up to (not including) index `to`. */
function namesBetween(weights: number[], from: number, to: number): string[] {
  return queueOf(weights).slice(from, to).map((entry) => entry.name);
}

describe('leaseQueueRule', () => {
  it('lets the first maxLeases single leases hold, without any write', () => {
    for (const own of [0, 1, 2]) expect(decide([1, 1, 1, 1, 1], own, 3)).toEqual({ held: true });
  });

  it('makes the first waiter wait for any of the holders, all of them', () => {
    expect(decide([1, 1, 1, 1, 1], 3, 3)).toEqual({ held: false, waitForAnyOf: namesAhead([1, 1, 1, 1, 1], 3) });
  });

  it('makes every later waiter wait for any of the maxLeases nodes right ahead of it (its proof)', () => {
    const weights = [1, 1, 1, 1, 1, 1, 1, 1];
    expect(decide(weights, 4, 3)).toEqual({ held: false, waitForAnyOf: namesBetween(weights, 1, 4) });
    expect(decide(weights, 7, 3)).toEqual({ held: false, waitForAnyOf: namesBetween(weights, 4, 7) });
  });

  it(`makes a waiter whose proof is more than ${MAX_WATCHED_NODES} nodes watch the directory instead`, () => {
    const many = new Array<number>(MAX_WATCHED_NODES + 2).fill(1);
    expect(decide(many, MAX_WATCHED_NODES, MAX_WATCHED_NODES)).toMatchObject({ held: false, waitForAnyOf: expect.any(Array) });
    expect(decide(many, MAX_WATCHED_NODES + 1, MAX_WATCHED_NODES + 1)).toEqual({ held: false, waitForChildren: true });
  });

  it('holds all n leases of a weighted node or none, and counts weights in the proof', () => {
    expect(decide([1, 3], 1, 3)).toEqual({ held: false, waitForAnyOf: namesAhead([1, 3], 1) });
    expect(decide([3], 0, 3)).toEqual({ held: true });
    expect(decide([2, 1], 1, 3)).toMatchObject({ held: true });
    expect(decide([2, 2], 1, 3)).toMatchObject({ held: false, waitForAnyOf: namesAhead([2, 2], 1) });
    // A request for 2 of 3 needs 2 leases held ahead to be refused: the nearest node of 2 is enough.
    expect(decide([1, 1, 2, 2], 3, 3)).toEqual({ held: false, waitForAnyOf: namesBetween([1, 1, 2, 2], 2, 3) });
    // ... and two single leases are needed otherwise.
    expect(decide([2, 1, 1, 2], 3, 3)).toEqual({ held: false, waitForAnyOf: namesBetween([2, 1, 1, 2], 1, 3) });
  });

  it('is FIFO: a big request at the head is not overtaken by smaller ones behind it', () => {
    // 1 held, then a request for 3 waits; a single lease behind it must wait although one is free.
    expect(decide([1, 3, 1], 1, 3)).toEqual({ held: false, waitForAnyOf: namesAhead([1, 3, 1], 1) });
    expect(decide([1, 3, 1], 2, 3)).toEqual({ held: false, waitForAnyOf: namesBetween([1, 3, 1], 1, 2) });
  });

  it('cannot deadlock two requests for more than half: the first gets all, the second none', () => {
    // maxLeases 3, two clients ask for 2 each.
    expect(decide([2, 2], 0, 3)).toMatchObject({ held: true });
    expect(decide([2, 2], 1, 3)).toMatchObject({ held: false, waitForAnyOf: namesAhead([2, 2], 1) });
    // When the first goes, the second holds.
    expect(decide([2], 0, 3)).toMatchObject({ held: true });
  });

  it('holders are a prefix, at most maxLeases are held, every proof refuses, and no node is in more than maxLeases proofs', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let round = 0; round < 500; round++) {
      const max = 1 + Math.floor(random() * 5);
      const weights = Array.from({ length: Math.floor(random() * 12) }, () => 1 + Math.floor(random() * max));
      const queue = queueOf(weights);
      const decisions = weights.map((_, i) => hinted(leaseQueueRule(() => max))(queue, i));
      const held = decisions.map((d) => d.held);
      const firstWaiting = held.indexOf(false);
      if (firstWaiting >= 0) expect(held.slice(firstWaiting).every((h) => !h)).toBe(true);
      expect(weights.filter((_, i) => held[i]).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(max);
      const watchers = new Map<string, number>();
      for (const [i, d] of decisions.entries()) {
        if (d.held) continue;
        expect(d).toMatchObject({ waitForAnyOf: expect.any(Array) });
        const proof = (d as { waitForAnyOf: readonly string[] }).waitForAnyOf;
        // The proof is the nearest nodes ahead, contiguous up to ours...
        expect(proof).toEqual(queue.slice(i - proof.length, i).map((e) => e.name));
        // ... holding too many leases for ours while they stand (so no lease idles while it waits) ...
        const proofLeases = weights.slice(i - proof.length, i).reduce((a, b) => a + b, 0);
        expect(proofLeases + weights[i]!).toBeGreaterThan(max);
        // ... and no shorter: without its farthest node it would not refuse.
        expect(proofLeases - weights[i - proof.length]! + weights[i]!).toBeLessThanOrEqual(max);
        for (const name of proof) watchers.set(name, (watchers.get(name) ?? 0) + 1);
      }
      // A release wakes at most maxLeases waiters.
      for (const count of watchers.values()) expect(count).toBeLessThanOrEqual(max);
    }
  });

  it('reads the maximum at every decision (a shared count raised admits waiters)', () => {
    let max = 1;
    const rule = hinted(leaseQueueRule(() => max));
    const queue = queueOf([1, 1, 1]);
    expect(rule(queue, 1).held).toBe(false);
    max = 3;
    expect(rule(queue, 1).held).toBe(true);
    expect(rule(queue, 2).held).toBe(true);
  });

  it('counts a lease node of an unknown weight as one lease', () => {
    const queue = sortedChildren([`_c_${GUID}-lease-0000000001`, `_c_${GUID}-other-0000000002`, `_c_${GUID}-lease-0000000003`]);
    expect(hinted(leaseQueueRule(() => 2))(queue, 2)).toMatchObject({ held: false, waitForAnyOf: [queue[0]!.name, queue[1]!.name] });
  });
});

describe('curatorCountRule', () => {
  it('holds while the leases directory has at most maxLeases children, ours included', () => {
    const rule = hinted(curatorCountRule(() => 2));
    expect(rule(queueOf([1, 1]), 1)).toEqual({ held: true });
    expect(rule(queueOf([1, 1, 1]), 0)).toEqual({ held: false, waitForChildren: true });
  });
});

describe('failInsteadOfWaiting', () => {
  it('throws instead of waiting, and passes holding through', () => {
    const rule = hinted(failInsteadOfWaiting(leaseQueueRule(() => 1), () => new Error('busy')));
    expect(rule(queueOf([1, 1]), 0)).toMatchObject({ held: true });
    expect(() => rule(queueOf([1, 1]), 1)).toThrow('busy');
  });
});
