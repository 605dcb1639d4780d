import { MAX_ANY_OF_WATCHES, type Decision, type OrderingRule, type QueueEntry } from '@zk-recipes/core/recipe-kit';
import { weightOfKind } from './leaseKinds.js';

/** A node we cannot read counts as one lease: never fewer leases than really exist. */
function weightOf(entry: QueueEntry): number {
  return weightOfKind(entry.kind) ?? 1;
}

/**
 * Above this many holders ahead of it, the first waiter watches the directory instead of each
 * holder: one child watch then costs less than that many data watches, at the price of waking on
 * arrivals too.
 */
export const MAX_WATCHED_HOLDERS = MAX_ANY_OF_WATCHES;

/**
 * The `queue` layout's rule, FIFO by sequence: a node holds its leases iff the leases of every
 * node before it plus its own fit in `maxLeases()`. So holders are always a prefix of the queue, a
 * large request at the head is never overtaken, and a node gets all its leases or none (two
 * clients asking for more than half can never each hold a part and wait for each other).
 *
 * Waiting is herd-free. The first waiter (every node ahead of it holds) watches each holder:
 * whichever releases wakes it, and only it; arrivals wake nobody. Every later waiter watches its
 * predecessor, which nudges it on becoming a holder; it then lists and is the first waiter. So a
 * release wakes at most one waiting process, and a freed lease is taken as soon as the first
 * waiter hears of it. The one hint: the first waiter decides again on the queue it has
 * (`reuseListing`), exact because nothing ever appears ahead of a lease node.
 *
 * `maxLeases` is read at every decision, so a shared count's current value applies.
 */
export function leaseQueueRule(maxLeases: () => number): OrderingRule {
  const decide = (queue: readonly QueueEntry[], ownIndex: number): Decision => {
    const max = maxLeases();
    let before = 0;
    let waiterAhead = false;
    for (let i = 0; i < ownIndex; i++) {
      before += weightOf(queue[i]!);
      if (before > max) {
        waiterAhead = true;
        break;
      }
    }
    if (!waiterAhead && before + weightOf(queue[ownIndex]!) <= max) return { held: true, nudgeSuccessor: true };
    if (!waiterAhead && ownIndex > MAX_WATCHED_HOLDERS) return { held: false, waitForChildren: true };
    if (!waiterAhead) return { held: false, waitForAnyOf: queue.slice(0, ownIndex).map((entry) => entry.name) };
    return { held: false, waitFor: queue[ownIndex - 1]!.name, relistIfTouched: true };
  };
  return { decide, hints: (_queue, _ownIndex, decision) => ('waitForAnyOf' in decision ? { reuseListing: true } : {}) };
}

/**
 * Curator's `InterProcessSemaphoreV2` rule, used under its internal lock: a lease is kept once the
 * leases directory has at most `maxLeases()` children (ours included); otherwise wait for any change.
 */
export function curatorCountRule(maxLeases: () => number): OrderingRule {
  return { decide: (queue) => (queue.length <= maxLeases() ? { held: true } : { held: false, waitForChildren: true }) };
}

/**
 * Wraps a rule for "only if free now": instead of waiting, throw `makeError()` (the engine then
 * deletes our node and rejects with it).
 */
export function failInsteadOfWaiting(rule: OrderingRule, makeError: () => Error): OrderingRule {
  const decide = (queue: readonly QueueEntry[], ownIndex: number): Decision => {
    const decision = rule.decide(queue, ownIndex);
    if (!decision.held) throw makeError();
    return decision;
  };
  return rule.hints === undefined ? { decide } : { decide, hints: rule.hints.bind(rule) };
}
