import { EventEmitter } from 'eventemitter3';
import type { LeadershipRecipe, ZkSession } from '@zk-recipes/core';
import { exclusiveRule, leadershipChannel, LockQueue, publishLeadership, validateLockPath, type QueueSeat } from '@zk-recipes/core/recipe-kit';
import { Term, type Leadership } from './Leadership.js';
import { participantData, readParticipants, type Participant } from './participants.js';

/** Events of a {@link LeaderLatch} and a {@link LeaderSelector}. */
export interface LeaderEvents {
  /** This participant became leader: `leadership` is the term's handle. */
  isLeader: (leadership: Leadership) => void;
  /** Its leadership ended (or may have): `reason` is the leadership signal's reason. */
  notLeader: (reason: Error) => void;
  /**
   * The election went wrong for this participant: a latch whose retry policy gave up (it then
   * closes itself), a selector's function that threw while it led (with `autoRequeue`), a
   * selector's node whose delete the server refused after its run settled (`NO_AUTH`...: the node
   * stays first in the election until its session ends).
   */
  error: (error: unknown) => void;
}

/**
 * What a latch and a selector share: one lock queue of the election's directory, walked with the
 * exclusive rule (docs/architecture.md, "The lock-queue engine"): the first node leads, and the
 * engine grants it only on our own live node and a session that cannot have expired yet.
 */
export abstract class ElectionMember extends EventEmitter<LeaderEvents> {
  /** The election's directory. */
  readonly path: string;
  /** This participant's id, written as its node's data. */
  readonly id: string;
  /** The election directory's lock queue. */
  protected readonly queue: LockQueue;
  private readonly data: Uint8Array;

  protected constructor(
    session: ZkSession,
    path: string,
    private readonly kind: string,
    id: string | undefined,
    /** With `id`: the owner data beside it in the node's data (the `ownerData` option). */
    ownerData: boolean | undefined,
    private readonly recipe: LeadershipRecipe,
    /** For messages: `LeaderLatch /services/a`. */
    protected readonly what: string,
  ) {
    super();
    this.queue = new LockQueue(session, validateLockPath(path, 'election path'));
    this.path = this.queue.path;
    this.data = participantData(this.queue.nodeData(null), id, ownerData === true);
    this.id = id ?? Buffer.from(this.data).toString('utf8');
    // An id the session would refuse to send fails here, not in the background.
    this.queue.assertFits(kind, this.data);
  }

  /** The session the participant's nodes are made in. */
  get session(): ZkSession {
    return this.queue.session;
  }

  /** Every participant, in sequence order, the leader first (Curator's `getParticipants()`). */
  getParticipants(): Promise<Participant[]> {
    return readParticipants(this.queue);
  }

  /** The leader, or `undefined` when nobody is in the election. */
  async getLeader(): Promise<Participant | undefined> {
    return (await readParticipants(this.queue))[0];
  }

  /** Enters the election once: resolves with our seat when our node is first (the engine's grant). */
  protected join(signal: AbortSignal, timeoutMs?: number): Promise<QueueSeat> {
    return this.queue.enter({ kind: this.kind, rule: exclusiveRule, data: this.data, signal, timeoutMs });
  }

  /** A term over a granted seat; published, and its end published once it comes. */
  protected beginTerm(seat: QueueSeat): Term {
    const term = new Term(this.queue, seat, this.path, this.id, this.session.sessionId);
    if (leadershipChannel.hasSubscribers) publishLeadership(this.recipe, this.path, this.id, seat, term.sessionId);
    return term;
  }

  /** Publishes the end of `term` (once it ended). */
  protected publishEnd(term: Term): void {
    if (leadershipChannel.hasSubscribers) publishLeadership(this.recipe, this.path, this.id, term.seat, term.sessionId, { reason: term.reason });
  }
}
