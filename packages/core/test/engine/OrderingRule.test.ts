import { describe, expect, it } from 'vitest';
import { decideWithHints, exclusiveRule, withoutHints, type OrderingRule } from '../../src/engine/OrderingRule.js';
import { sortedChildren } from '../../src/nodes/index.js';

const queue = sortedChildren([
  '_c_6f1c0d2e-1111-4111-8111-111111111111-lock-0000000003',
  '_c_6f1c0d2e-2222-4222-8222-222222222222-lock-0000000001',
  'lock-0000000002',
]);

describe('exclusiveRule (mutex)', () => {
  it('decides purely: held when first, else wait for the immediate predecessor', () => {
    expect(exclusiveRule.decide(queue, 0)).toStrictEqual({ held: true });
    expect(exclusiveRule.decide(queue, 1)).toStrictEqual({ held: false, waitFor: queue[0]!.name });
    expect(exclusiveRule.decide(queue, 2)).toStrictEqual({ held: false, waitFor: 'lock-0000000002' });
  });
  it('holds when first', () => {
    expect(decideWithHints(exclusiveRule, queue, 0)).toStrictEqual({ held: true });
  });
  it('waits for the immediate predecessor, watching the node two ahead; the head is the last obstacle; a holder predecessor would be the last', () => {
    expect(decideWithHints(exclusiveRule, queue, 1)).toStrictEqual({ held: false, waitFor: queue[0]!.name, lastObstacle: true, lastObstacleIfHeld: true });
    expect(decideWithHints(exclusiveRule, queue, 2)).toStrictEqual({ held: false, waitFor: 'lock-0000000002', lastObstacle: false, lastObstacleIfHeld: true, watchAhead: queue[0]!.name });
  });
});

describe('decideWithHints', () => {
  const names = queue.map((entry) => entry.name);
  const anyOf = (hints: OrderingRule['hints']): OrderingRule => ({ decide: () => ({ held: false, waitForAnyOf: names.slice(0, 2) }), hints });

  it('without hints, gives the outcome alone, and never a shortcut', () => {
    const bare = withoutHints(exclusiveRule);
    expect(bare.hints).toBeUndefined();
    expect(decideWithHints(bare, queue, 0)).toStrictEqual({ held: true });
    expect(decideWithHints(bare, queue, 1)).toStrictEqual({ held: false, waitFor: queue[0]!.name, lastObstacle: false });
  });

  it('waits for any of several nodes on the same listing only with reuseListing; else it waits for the children', () => {
    expect(decideWithHints(anyOf(undefined), queue, 2)).toStrictEqual({ held: false, waitForChildren: true });
    expect(decideWithHints(anyOf(() => ({ relistIfCreated: ['x'] })), queue, 2)).toStrictEqual({ held: false, waitForChildren: true });
    expect(decideWithHints(anyOf(() => ({ reuseListing: true })), queue, 2)).toStrictEqual({ held: false, waitForAnyOf: names.slice(0, 2) });
    expect(decideWithHints(anyOf(() => ({ reuseListing: true, relistIfCreated: ['x'] })), queue, 2)).toStrictEqual({ held: false, waitForAnyOf: names.slice(0, 2), relistIfCreated: ['x'] });
  });

  it('passes a node wait at most one name to watch for creation, and drops hints that do not apply to the outcome', () => {
    const waitsFor = (hints: OrderingRule['hints']): OrderingRule => ({ decide: () => ({ held: false, waitFor: names[0]! }), hints });
    expect(decideWithHints(waitsFor(() => ({ relistIfCreated: ['x'], reuseListing: true })), queue, 1)).toStrictEqual({ held: false, waitFor: names[0], lastObstacle: false, relistIfCreated: 'x' });
    expect(() => decideWithHints(waitsFor(() => ({ relistIfCreated: ['x', 'y'] })), queue, 1)).toThrow(RangeError);
    const holds: OrderingRule = { decide: () => ({ held: true }), hints: () => ({ lastObstacle: true, reuseListing: true }) };
    expect(decideWithHints(holds, queue, 0)).toStrictEqual({ held: true });
  });
});
