import { sortedChildren, type OrderingRule } from '@zk-recipes/core/recipe-kit';
import { describe, expect, it } from 'vitest';
import { checkMany, type ModelRecipe } from '../../core/test/engine/hintsModel.js';
import { downgradeNameOf } from '../src/downgradeName.js';
import { CURATOR_NAMING, ZK_RECIPES_NAMING, type ReadWriteNaming } from '../src/naming.js';
import { readRule, writeRule } from '../src/rules.js';

/**
 * Hints never change an outcome, only how many listings it takes (see the core's `hintsModel.ts`
 * for the model, the properties and what it leaves out): readers, writers, downgrade read nodes
 * at their writer's place, foreign writers (unprotected names, never downgraded) and nodes of a
 * kind the rules do not know (exclusive).
 */
function recipe(naming: ReadWriteNaming, adjust: (rule: OrderingRule) => OrderingRule = (rule) => rule): ModelRecipe {
  const read = adjust(readRule(naming));
  const write = adjust(writeRule(naming));
  const rules = new Map<string, OrderingRule>();
  return {
    arrival: (random, guid, sequence) => {
      const r = random();
      const seq = String(sequence).padStart(10, '0');
      if (r < 0.45) return `_c_${guid}-${naming.read}${seq}`;
      if (r < 0.85) return `_c_${guid}-${naming.write}${seq}`;
      return r < 0.93 ? `${naming.write}${seq}` : `_c_${guid}-lock-${seq}`;
    },
    ruleOf: (name) => {
      let rule = rules.get(name);
      if (rule === undefined) rules.set(name, (rule = sortedChildren([name])[0]!.kind === naming.read ? read : write));
      return rule;
    },
    downgradeOf: (name) => downgradeNameOf(name, naming),
  };
}

describe('hints of the read/write rules (pure model)', () => {
  const seed = Number(process.env.HINTS_SEED ?? 7_919);

  it('never grant what decide on the true queue does not, end with the same holders, and save listings', { timeout: 30_000 }, () => {
    for (const races of [false, true]) {
      const result = checkMany(recipe(ZK_RECIPES_NAMING), seed, 500, { events: 30, races });
      expect(result.failures.slice(0, 3), `races ${races}, first seed ${seed}`).toEqual([]);
      expect(result.shortcutGrants).toBeGreaterThan(0);
      expect(result.listings.hinted + result.aheadListings).toBeLessThan(result.listings.bare);
    }
  });

  it("with Curator's names too", { timeout: 30_000 }, () => {
    const result = checkMany(recipe(CURATOR_NAMING), seed + 1_000_000, 200, { events: 30 });
    expect(result.failures.slice(0, 3), `first seed ${seed + 1_000_000}`).toEqual([]);
  });

  it('catches a writer that takes the shortcuts without watching for the downgrade read node', () => {
    const blind = (rule: OrderingRule): OrderingRule => ({
      decide: rule.decide,
      hints: (queue, i, decision) => {
        const { relistIfCreated: _, ...hints } = rule.hints!(queue, i, decision);
        return hints;
      },
    });
    const result = checkMany(recipe(ZK_RECIPES_NAMING), 1, 300, { events: 30, hinted: blind, firstFailure: true });
    expect(result.failures.length).toBeGreaterThan(0);
    expect(result.failures[0]).toMatch(/^seed \d+: .*granted by a shortcut while decide on the true queue says/);
  });
});
