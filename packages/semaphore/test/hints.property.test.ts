import type { OrderingRule } from '@zk-recipes/core/recipe-kit';
import { describe, expect, it } from 'vitest';
import { checkMany, type ModelRecipe } from '../../core/test/engine/hintsModel.js';
import { leaseKind } from '../src/leaseKinds.js';
import { leaseQueueRule } from '../src/rules.js';

/**
 * Hints never change an outcome, only how many listings it takes (see the core's `hintsModel.ts`
 * for the model, the properties and what it leaves out): weighted leases under `maxLeases`.
 */
function recipe(maxLeases: number, adjust: (rule: OrderingRule) => OrderingRule = (rule) => rule): ModelRecipe {
  const rule = adjust(leaseQueueRule(() => maxLeases));
  return {
    arrival: (random, guid, sequence) => `_c_${guid}-${leaseKind(1 + Math.floor(random() * random() * maxLeases))}${String(sequence).padStart(10, '0')}`,
    ruleOf: () => rule,
  };
}

describe('hints of the lease queue rule (pure model)', () => {
  it('never grant what decide on the true queue does not, end with the same holders, and save listings', { timeout: 30_000 }, () => {
    const seed = Number(process.env.HINTS_SEED ?? 104_729);
    for (const [max, races] of [1, 2, 3, 5].flatMap((max) => [[max, false], [max, true]] as const)) {
      const result = checkMany(recipe(max), seed + max * 1_000_000, 125, { events: 30, races });
      expect(result.failures.slice(0, 3), `maxLeases ${max}, races ${races}, first seed ${seed + max * 1_000_000}`).toEqual([]);
      expect(result.shortcutGrants).toBeGreaterThan(0);
      expect(result.listings.hinted + result.aheadListings).toBeLessThan(result.listings.bare);
    }
  });

  it('a proof is part of the outcome, not a hint: one too short lets a waiter sleep while a lease is free', () => {
    const shortProof = (rule: OrderingRule): OrderingRule => ({
      decide: (queue, i) => {
        const decision = rule.decide(queue, i);
        return 'waitForAnyOf' in decision && decision.waitForAnyOf.length > 1 ? { held: false, waitForAnyOf: decision.waitForAnyOf.slice(1) } : decision;
      },
      ...(rule.hints === undefined ? {} : { hints: rule.hints }),
    });
    const result = checkMany(recipe(2, shortProof), 1, 300, { events: 30, firstFailure: true });
    expect(result.failures[0]).toMatch(/^seed \d+: .*holders with hints \[.*\], without \[.*\], decide on the true queue/);
  });
});
