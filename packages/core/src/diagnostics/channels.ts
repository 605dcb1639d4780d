// The diagnostics channels every recipe publishes on (docs/observability.md, "Diagnostics
// channels"): how a tracer or a metrics library watches acquisitions, releases, losses and session
// states without a dependency, as undici and pg do. Nothing is built for a channel nobody listens
// to: every publisher checks `hasSubscribers` first.
import * as diagnostics from 'node:diagnostics_channel';
import type { ConnectionState } from '../session/types.js';

/** The tracing channel of every acquisition: `tracing:zk-recipes:acquire:start|end|asyncStart|asyncEnd|error`. */
export const ACQUIRE_CHANNEL = 'zk-recipes:acquire';
/** Published once per release that deletes a held node. */
export const RELEASE_CHANNEL = 'zk-recipes:release';
/** Published when a held lock is lost (its handle's `signal` aborts). */
export const LOST_CHANNEL = 'zk-recipes:lost';
/** Published on every state change of a `ZkSession`, `closed` included. */
export const SESSION_CHANNEL = 'zk-recipes:session';
/** Published when a participant of a leader election becomes leader, and when that leadership ends. */
export const LEADERSHIP_CHANNEL = 'zk-recipes:leadership';

/** Which recipe an acquisition, release or loss belongs to. */
export type DiagnosticsRecipe = 'mutex' | 'semaphore-mutex' | 'read-lock' | 'write-lock' | 'semaphore' | 'multi-lock';

/** What an acquisition asks for: a lock, a read or write lock, semaphore leases, or a multi-lock's members. */
export type AcquireKind = 'lock' | 'read' | 'write' | 'lease' | 'multi';

/** How an acquisition ended. */
export type AcquireOutcome = 'granted' | 'reentered' | 'timeout' | 'aborted' | 'failed';

/**
 * The context object of one `zk-recipes:acquire` trace: the same object at every event of it.
 * The fields below "on completion" are set before `asyncEnd` (and `error`).
 */
export interface AcquireContext {
  /** The recipe that took the lock. */
  recipe: DiagnosticsRecipe;
  /** The lock directory; a multi-lock's members' directories, joined by `,`. */
  path: string;
  /** What was asked for: a lock, a read or write lock, leases, a multi-lock. */
  kind: AcquireKind;
  /** The ZooKeeper session id (16 hex digits) at the start; a multi-lock's first member's. */
  sessionId: string;
  /** The acquisition's `timeoutMs` (a `tryAcquire` without one: 0). */
  timeoutMs?: number;
  /** A semaphore's number of leases asked for. */
  leases?: number;
  /** On completion: how it ended. A `tryAcquire` that found no room is `timeout` (no `error` event). */
  outcome?: AcquireOutcome;
  /** On a grant: the full path of our node (the first lease's for several; none for a multi-lock). */
  node?: string;
  /** On a grant: the node's fencing token (`czxid`). */
  fencingToken?: bigint;
  /** On completion: milliseconds from the start to the grant or failure. */
  waitMs?: number;
  /** On a rejection: what it rejected with (set as the `error` event is published). */
  error?: unknown;
}

/** The message of `zk-recipes:release`. */
export interface ReleaseMessage {
  /** The recipe that took the lock. */
  recipe: DiagnosticsRecipe;
  /** The lock directory. */
  path: string;
  /** The full path of the node given back. */
  node: string;
  /** The ZooKeeper session id (16 hex digits) that held it. */
  sessionId: string;
  /** Milliseconds from the grant to the end of the release. */
  holdMs: number;
  /** `failed`: the server refused the delete (the lock is still held; `error` says why). */
  outcome: 'released' | 'failed';
  /** `failed`: the server's refusal. */
  error?: unknown;
}

/** The message of `zk-recipes:lost`. */
export interface LostMessage {
  /** The recipe that took the lock. */
  recipe: DiagnosticsRecipe;
  /** The lock directory. */
  path: string;
  /** The full path of the node that was ours. */
  node: string;
  /** The ZooKeeper session id (16 hex digits) that held it. */
  sessionId: string;
  /** Why it was lost: the session ended, our node was deleted, or the session was closed. */
  code: 'SESSION_LOST' | 'NODE_DELETED' | 'SESSION_CLOSED';
  /** The reason the handle's `signal` aborted with. */
  reason: Error;
  /** Milliseconds from the grant to the loss. */
  heldMs: number;
}

/** The message of `zk-recipes:session`. */
export interface SessionMessage {
  /** The ZooKeeper session id (16 hex digits). */
  sessionId: string;
  /** The new state. */
  state: ConnectionState;
  /** The state before this change (`connecting` before the first `connected`). */
  previous: ConnectionState;
  /** The session's generation (its ZooKeeper session count, see `ZkSession.generation`). */
  generation: number;
  /** Why, for `lost`. */
  reason?: Error;
}

/** The election recipe a leadership belongs to. */
export type LeadershipRecipe = 'leader-latch' | 'leader-selector';

/**
 * The message of `zk-recipes:leadership`. `gained`: the participant became leader. `lost`: its
 * leadership was taken away (`code` `SESSION_LOST`, `NODE_DELETED`, `SESSION_CLOSED`).
 * `released`: it gave leadership up itself (`code` `ELECTION_CLOSED` on close, `ABORTED` when its
 * term ended or was interrupted). Every `gained` is followed by one `lost` or `released`.
 */
export interface LeadershipMessage {
  /** The election recipe. */
  recipe: LeadershipRecipe;
  /** The election's directory. */
  path: string;
  /** The full path of the leader's node. */
  node: string;
  /** The participant's id (its node's data). */
  id: string;
  /** The ZooKeeper session id (16 hex digits) of the participant. */
  sessionId: string;
  /** What happened to the leadership (see above). */
  event: 'gained' | 'lost' | 'released';
  /** The leadership's fencing token (its node's `czxid`): grows with every new leader. */
  fencingToken: bigint;
  /** `lost` and `released`: the code of the reason the leadership's `signal` aborted with. */
  code?: string;
  /** `lost` and `released`: that reason. */
  reason?: Error;
  /** `lost` and `released`: milliseconds from the grant to the end. */
  heldMs?: number;
}

/** @internal */
export const acquireChannel = diagnostics.tracingChannel<AcquireContext, AcquireContext>(ACQUIRE_CHANNEL);
/** The `zk-recipes:release` channel, which {@link publishRelease} publishes on; a recipe checks `hasSubscribers` before building a message. */
export const releaseChannel = diagnostics.channel(RELEASE_CHANNEL);
/** The `zk-recipes:lost` channel, which {@link publishLost} publishes on; a recipe checks `hasSubscribers` before building a message. */
export const lostChannel = diagnostics.channel(LOST_CHANNEL);
/** @internal */
export const sessionChannel = diagnostics.channel(SESSION_CHANNEL);
/** The `zk-recipes:leadership` channel, which {@link publishLeadership} publishes on; a recipe checks `hasSubscribers` before building a message. */
export const leadershipChannel = diagnostics.channel(LEADERSHIP_CHANNEL);

/** The kind of what a recipe's acquisition asks for. */
export function kindOfRecipe(recipe: DiagnosticsRecipe): AcquireKind {
  switch (recipe) {
    case 'read-lock':
      return 'read';
    case 'write-lock':
      return 'write';
    case 'semaphore':
      return 'lease';
    case 'multi-lock':
      return 'multi';
    default:
      return 'lock';
  }
}

/** A held node, as a release or loss reports it. */
export interface HeldNode {
  /** The full path of the held node. */
  readonly path: string;
  /** When it was granted, on `performance.now()`'s clock. */
  readonly grantedAt: number;
  /** Aborted when it is lost, with the reason. */
  readonly signal: AbortSignal;
}

/** Publishes a release (call only when `releaseChannel.hasSubscribers`). */
export function publishRelease(recipe: DiagnosticsRecipe, path: string, held: HeldNode, sessionId: string, error?: unknown): void {
  const message: ReleaseMessage = {
    recipe,
    path,
    node: held.path,
    sessionId,
    holdMs: performance.now() - held.grantedAt,
    outcome: error === undefined ? 'released' : 'failed',
  };
  if (error !== undefined) message.error = error;
  releaseChannel.publish(message);
}

/**
 * Publishes the loss of a held node whose signal just aborted (call only when
 * `lostChannel.hasSubscribers`).
 */
export function publishLost(recipe: DiagnosticsRecipe, path: string, held: HeldNode, sessionId: string): void {
  const raw: unknown = held.signal.reason;
  const reason = raw instanceof Error ? raw : new Error(String(raw));
  const known = (reason as { code?: unknown }).code;
  const code = known === 'NODE_DELETED' || known === 'SESSION_CLOSED' ? known : 'SESSION_LOST';
  const message: LostMessage = { recipe, path, node: held.path, sessionId, code, reason, heldMs: performance.now() - held.grantedAt };
  lostChannel.publish(message);
}

/** @internal Publishes a ZkSession's state change (call only when `sessionChannel.hasSubscribers`). */
export function publishSessionState(session: { readonly sessionId: string; readonly generation: number }, state: ConnectionState, previous: ConnectionState, reason: Error | undefined): void {
  const message: SessionMessage = { sessionId: session.sessionId, state, previous, generation: session.generation };
  if (reason !== undefined) message.reason = reason;
  sessionChannel.publish(message);
}

/** What a leadership's start or end reports (the recipes' leadership handle). */
export interface LeadershipNode extends HeldNode {
  /** The leader node's `czxid`. */
  readonly fencingToken: bigint;
}

/**
 * Publishes a leadership's start (`ended` undefined) or end (call only when
 * `leadershipChannel.hasSubscribers`). An end whose reason is the session's loss, its close or
 * our node's deletion is `lost`; any other (closed, interrupted, given up) is `released`.
 */
export function publishLeadership(recipe: LeadershipRecipe, path: string, id: string, held: LeadershipNode, sessionId: string, ended?: { reason: unknown }): void {
  const message: LeadershipMessage = { recipe, path, node: held.path, id, sessionId, event: 'gained', fencingToken: held.fencingToken };
  if (ended !== undefined) {
    const reason = ended.reason instanceof Error ? ended.reason : new Error(String(ended.reason));
    const code = (reason as { code?: unknown }).code;
    message.code = typeof code === 'string' ? code : 'UNKNOWN';
    message.event = code === 'SESSION_LOST' || code === 'NODE_DELETED' || code === 'SESSION_CLOSED' ? 'lost' : 'released';
    message.reason = reason;
    message.heldMs = performance.now() - held.grantedAt;
  }
  leadershipChannel.publish(message);
}
