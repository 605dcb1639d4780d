import { describe, expect, it } from 'vitest';
import { exclusiveRule, type OrderingRule } from '../../src/engine/OrderingRule.js';
import { checkMany, type ModelRecipe } from './hintsModel.js';

/**
 * Hints never change an outcome, only how many listings it takes (see `hintsModel.ts` for the
 * model, the properties and what it leaves out): the mutex's rule.
 */
const mutex: ModelRecipe = {
  arrival: (random, guid, sequence) => (random() < 0.85 ? `_c_${guid}-lock-` : 'lock-') + String(sequence).padStart(10, '0'),
  ruleOf: () => exclusiveRule,
};

describe('hints of the exclusive rule (pure model)', () => {
  it('never grant what decide on the true queue does not, end with the same holders, and save listings', { timeout: 30_000 }, () => {
    const seed = Number(process.env.HINTS_SEED ?? 20_151);
    for (const races of [false, true]) {
      const result = checkMany(mutex, seed, 500, { events: 30, races });
      expect(result.failures.slice(0, 3), `races ${races}, first seed ${seed}`).toEqual([]);
      expect(result.shortcutGrants).toBeGreaterThan(0);
      expect(result.listings.hinted + result.aheadListings).toBeLessThan(result.listings.bare);
    }
  });

  it('catches a wrong hint: the predecessor called the last obstacle with another node ahead', () => {
    const wrong: OrderingRule = { decide: exclusiveRule.decide, hints: (queue, i, decision) => ({ ...exclusiveRule.hints!(queue, i, decision), lastObstacle: true }) };
    const result = checkMany(mutex, 1, 300, { events: 30, hinted: () => wrong, firstFailure: true });
    expect(result.failures.length).toBeGreaterThan(0);
    expect(result.failures[0]).toMatch(/^seed \d+: .*granted by a shortcut while decide on the true queue says/);
  });
});
