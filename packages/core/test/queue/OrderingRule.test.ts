import { describe, expect, it } from 'vitest';
import { exclusiveRule } from '../../src/queue/OrderingRule.js';
import { sortedChildren } from '../../src/nodes/index.js';

const queue = sortedChildren([
  '_c_6f1c0d2e-1111-4111-8111-111111111111-lock-0000000003',
  '_c_6f1c0d2e-2222-4222-8222-222222222222-lock-0000000001',
  'lock-0000000002',
]);

describe('exclusiveRule (mutex)', () => {
  it('holds when first, and announces it', () => {
    expect(exclusiveRule(queue, 0)).toEqual({ held: true, announceHolding: true });
  });
  it('waits for the immediate predecessor; the head is the last obstacle; a holder predecessor would be the last', () => {
    expect(exclusiveRule(queue, 1)).toEqual({ held: false, waitFor: queue[0]!.name, lastObstacle: true, lastObstacleIfHeld: true, announceHolding: true, watchedAnnounces: true });
    expect(exclusiveRule(queue, 2)).toEqual({ held: false, waitFor: 'lock-0000000002', lastObstacle: false, lastObstacleIfHeld: true, announceHolding: true, watchedAnnounces: true });
  });
});
