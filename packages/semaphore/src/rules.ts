import { MAX_ANY_OF_WATCHES, type Decision, type OrderingRule, type QueueEntry } from '@zk-recipes/core/recipe-kit';
import { weightOfKind } from './leaseKinds.js';

/** A node we cannot read counts as one lease: never fewer leases than really exist. */
function weightOf(entry: QueueEntry): number {
  return weightOfKind(entry.kind) ?? 1;
}

/**
 * Above this many nodes to watch, a waiter watches the directory instead of each node: one child
 * watch then costs less than that many deletion watches, at the price of waking on arrivals too.
 */
export const MAX_WATCHED_NODES = MAX_ANY_OF_WATCHES;

/**
 * The `queue` layout's rule, FIFO by sequence: a node holds its leases iff the leases of every
 * node before it plus its own fit in `maxLeases()`. So holders are always a prefix of the queue, a
 * large request at the head is never overtaken, and a node gets all its leases or none (two
 * clients asking for more than half can never each hold a part and wait for each other).
 *
 * A waiter watches its *proof*: the nearest nodes ahead of it whose leases alone leave too few
 * for its own (docs/architecture.md, "Counting semaphores"). While all of them stand it cannot
 * hold, whatever happens further ahead, so it needs to hear of nothing else; when one goes it
 * decides again at once on what it knows (`reuseListing`). A first waiter's proof is every holder,
 * so any release admits it without a request; when releases come together, each waiter whose
 * proof they break decides for itself, so as many waiters are admitted as leases were freed, with
 * no write between them. Nothing is written to a lease node after its create.
 *
 * No herd: a node is in the proof of at most the `maxLeases` waiters right behind it (each node
 * between holds at least one lease), so a release wakes at most `maxLeases` processes, and an
 * arrival none.
 *
 * `maxLeases` is read at every decision, so a shared count's current value applies; while
 * `countSettling()` says a change of it has arrived and its new value is still being read, no
 * node holds on the old value: it waits for the children and decides again once the value is read.
 */
export function leaseQueueRule(maxLeases: () => number, countSettling: () => boolean = never): OrderingRule {
  const decide = (queue: readonly QueueEntry[], ownIndex: number): Decision => {
    const max = maxLeases();
    const own = weightOf(queue[ownIndex]!);
    let ahead = 0;
    for (let i = 0; i < ownIndex; i++) ahead += weightOf(queue[i]!);
    if (ahead + own <= max) return countSettling() ? untilCountSettles : { held: true };
    // The proof: nearest first, until the leases it holds leave too few for ours.
    let proof = 0;
    let first = ownIndex;
    while (proof + own <= max && first > 0) proof += weightOf(queue[--first]!);
    if (ownIndex - first > MAX_WATCHED_NODES) return { held: false, waitForChildren: true };
    return { held: false, waitForAnyOf: queue.slice(first, ownIndex).map((entry) => entry.name) };
  };
  return { decide, hints: (_queue, _ownIndex, decision) => ('waitForAnyOf' in decision ? { reuseListing: true } : {}) };
}

/**
 * Curator's `InterProcessSemaphoreV2` rule, used under its internal lock: a lease is kept once the
 * leases directory has at most `maxLeases()` children (ours included); otherwise wait for any change.
 */
export function curatorCountRule(maxLeases: () => number, countSettling: () => boolean = never): OrderingRule {
  return { decide: (queue) => (queue.length <= maxLeases() && !countSettling() ? { held: true } : { held: false, waitForChildren: true }) };
}

/**
 * A node that would hold on the count's old value while a change of the count has arrived and is
 * being read: ZooKeeper sent that change before whatever we are deciding on (a release after a
 * lowered count), so the old value may no longer be the maximum. Wait; the count's settling
 * rechecks the decision (`SharedCount.onSettled`).
 */
const untilCountSettles: Decision = { held: false, waitForChildren: true };

function never(): boolean {
  return false;
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
