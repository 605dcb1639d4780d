/** Roles come from the recipes' own rules, applied to the queue up to each node. */
import { describe, expect, it } from 'vitest';
import { exclusiveRule, sortedChildren, type OrderingRule } from '@zk-recipes/core/recipe-kit';
import { CURATOR_NAMING, readRule, writeRule, ZK_RECIPES_NAMING } from '@zk-recipes/read-write-lock';
import { curatorCountRule, leaseQueueRule } from '@zk-recipes/semaphore';
import { familyOf } from '../src/lock/recipeOfKinds.js';
import { rolesOf } from '../src/lock/roles.js';

const guid = '0f6c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b';
const queueOf = (...names: string[]) => sortedChildren(names.map((name) => `_c_${guid}-${name}`));

describe('rolesOf', () => {
  it('mutex: the first holds, the rest wait', () => {
    expect(rolesOf(queueOf('lock-0000000007', 'lock-0000000003', 'lock-0000000009'), () => exclusiveRule)).toEqual(['holder', 'waiter', 'waiter']);
  });

  it('read/write lock: readers share up to the first writer; a reader behind a writer waits', () => {
    const rule = (read: OrderingRule, write: OrderingRule) => (entry: { kind: string }) => (entry.kind === ZK_RECIPES_NAMING.read ? read : write);
    const queue = queueOf('read-0000000001', 'read-0000000002', 'write-0000000003', 'read-0000000004');
    expect(rolesOf(queue, rule(readRule(ZK_RECIPES_NAMING), writeRule(ZK_RECIPES_NAMING)))).toEqual(['holder', 'holder', 'waiter', 'waiter']);
  });

  it('read/write lock: a downgrade read node at its writer\'s place holds with it', () => {
    const queue = queueOf('write-0000000005', 'read-0000000005', 'write-0000000006');
    const rule = (entry: { kind: string }) => (entry.kind === ZK_RECIPES_NAMING.read ? readRule(ZK_RECIPES_NAMING) : writeRule(ZK_RECIPES_NAMING));
    expect(rolesOf(queue, rule)).toEqual(['holder', 'holder', 'waiter']);
  });

  it('semaphore queue layout: holders are the prefix whose leases fit; a large request at the head is not overtaken', () => {
    const queue = queueOf('lease-w2-0000000001', 'lease-0000000002', 'lease-w2-0000000003', 'lease-0000000004');
    expect(rolesOf(queue, () => leaseQueueRule(() => 3))).toEqual(['holder', 'holder', 'waiter', 'waiter']);
    expect(rolesOf(queue, () => leaseQueueRule(() => 6))).toEqual(['holder', 'holder', 'holder', 'holder']);
  });

  it("Curator's semaphore: the first maxLeases nodes hold, the later ones (created under the internal lock) wait", () => {
    const queue = queueOf('lease-0000000001', 'lease-0000000002', 'lease-0000000003');
    expect(rolesOf(queue, () => curatorCountRule(() => 2))).toEqual(['holder', 'holder', 'waiter']);
  });

  it('unknown when no rule can be had (a semaphore without a known maximum)', () => {
    expect(rolesOf(queueOf('lease-0000000001'), () => null)).toEqual(['unknown']);
  });
});

describe('familyOf', () => {
  it('tells the recipe from the node kinds', () => {
    expect(familyOf(queueOf('lock-0000000001'))).toEqual({ recipe: 'mutex' });
    expect(familyOf(queueOf('write-0000000001'))).toMatchObject({ recipe: 'read-write-lock', layout: 'zk-recipes' });
    expect(familyOf(queueOf('__READ__0000000001'))).toMatchObject({ recipe: 'read-write-lock', layout: 'curator', naming: CURATOR_NAMING });
    expect(familyOf(queueOf('lease-w3-0000000001', 'lease-0000000002'))).toEqual({ recipe: 'semaphore' });
    // A LeaderLatch's election; a LeaderSelector's is a mutex's queue.
    expect(familyOf(queueOf('latch-0000000001', 'latch-0000000002'))).toEqual({ recipe: 'leader-latch' });
    expect(familyOf(queueOf('n_0000000001'))).toBeNull();
    expect(familyOf([])).toBeNull();
  });
});
