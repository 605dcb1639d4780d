/**
 * What the zk-recipes diagnostics channels publish, as far as this package reads it
 * (docs/observability.md, "Diagnostics channels"). Every field is read defensively: a subscriber
 * must never throw into the library it observes.
 */

/** The context of one acquisition on the tracing channel `zk-recipes:acquire`. */
export interface AcquireContext {
  recipe: string;
  path: string;
  kind?: string;
  sessionId?: string;
  timeoutMs?: number;
  leases?: number;
  outcome?: string;
  node?: string;
  fencingToken?: bigint;
  waitMs?: number;
  error?: unknown;
}

/** A release that deleted the node, on `zk-recipes:release`. */
export interface ReleaseMessage {
  recipe: string;
  path: string;
  node?: string;
  sessionId?: string;
  holdMs?: number;
  outcome?: string;
  error?: unknown;
}

/** A held lock lost, on `zk-recipes:lost`. */
export interface LostMessage {
  recipe: string;
  path: string;
  node?: string;
  sessionId?: string;
  code?: string;
  reason?: unknown;
  heldMs?: number;
}

/** A session's state change, on `zk-recipes:session`. */
export interface SessionMessage {
  sessionId?: string;
  state: string;
  previous?: string;
  generation?: number;
  reason?: unknown;
}
