// NODE_DEBUG=zk-recipes (docs/observability.md, "NODE_DEBUG"): one line per session transition
// and per step of an acquisition. Node reads NODE_DEBUG once, at start: with it off every function
// here returns before it builds anything, so callers pass what they already have.
import { debuglog } from 'node:util';
import { isZkError } from '../errors.js';
import type { HintedDecision } from '../engine/OrderingRule.js';
import type { ConnectionState } from '../session/types.js';

const log = debuglog('zk-recipes');
/** Whether NODE_DEBUG names `zk-recipes` (fixed for the process). */
const enabled = log.enabled;

/** A ZkSession's state change. */
export function debugSessionState(session: { readonly sessionId: string; readonly generation: number }, state: ConnectionState, previous: ConnectionState): void {
  if (!enabled) return;
  log('session %s (generation %d): %s -> %s', session.sessionId, session.generation, previous, state);
}

/** Step 1 done: our node exists. */
export function debugEnqueued(node: string): void {
  if (!enabled) return;
  log('enqueued %s', node);
}

/** Step 2: what the rule decided for our node. */
export function debugDecision(node: string, decision: HintedDecision): void {
  if (!enabled) return;
  if (decision.held) log('decided %s: held', node);
  else if ('waitForAnyOf' in decision) log('decided %s: wait for any of %s', node, decision.waitForAnyOf.join(', '));
  else if ('waitForChildren' in decision) log('decided %s: wait for the children to change', node);
  else log('decided %s: wait for %s', node, decision.waitFor);
}

/** Step 3 ended: how the wait came back (`held`, `passed`, `relist`, a new listing, a node gone). */
export function debugWaitEnded(node: string, how: string): void {
  if (!enabled) return;
  log('wait of %s ended: %s', node, how);
}

/** Step 4: the grant. */
export function debugGranted(node: string, fencingToken: bigint): void {
  if (!enabled) return;
  log('granted %s (fencing token %s)', node, String(fencingToken));
}

/** Step 5: a holder's node was deleted by its release (`refused`: the server refused the delete). */
export function debugReleased(node: string, refused?: unknown): void {
  if (!enabled) return;
  if (refused === undefined) log('released %s', node);
  else log('release of %s refused: %s', node, isZkError(refused) ? refused.code : refused instanceof Error ? refused.name : String(refused));
}

/** The acquisition failed (its node, if it had one, is being deleted). */
export function debugFailed(what: string, node: string | undefined, err: unknown): void {
  if (!enabled) return;
  const code = isZkError(err) ? err.code : err instanceof Error ? err.name : String(err);
  log('failed %s: %s', node ?? what, code);
}
