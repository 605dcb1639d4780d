import { NotOwnerError, ReleaseFailedError } from '@zk-recipes/core';
import { disposeHandle, SeatHandle, type LockQueue, type QueueSeat } from '@zk-recipes/core/recipe-kit';

/**
 * One lease of an {@link InterProcessSemaphore}. Release it exactly once: with `release()`, or by
 * `await using` (`Symbol.asyncDispose` releases it unless `release()` was called; a release the
 * server refuses rejects with ReleaseFailedError, `RELEASE_FAILED`, carrying this lease).
 */
export interface Lease extends AsyncDisposable {
  /** Full path of the ZooKeeper node backing this lease (shared by the leases of one `acquireMany` in the `queue` layout). */
  readonly path: string;
  /**
   * Fencing token: the lease node's `czxid` (the zxid of the transaction that created it). It is
   * unique to the node and grows with every later lease of the semaphore (ZooKeeper's zxids only
   * grow, even if the directory is deleted and recreated), so a resource can tell a lease from an
   * older one. The leases of one `acquireMany` in the `queue` layout share one node and one token.
   * With `maxLeases: 1` fence exactly as with a mutex (reject a token lower than the highest
   * seen); with more leases several holders are legitimate at once, see docs/semaphore.md.
   */
  readonly fencingToken: bigint;
  /**
   * When the lease was granted, on this process's `performance.now()` clock: the reading with which
   * the engine last checked that the ZooKeeper session could not have expired (shared by the
   * leases of one node).
   */
  readonly grantedAt: number;
  /** The semaphore's `data` option, stored in the lease's node; `null` without one (the node then names its owner). */
  readonly data: Uint8Array | null;
  /**
   * Aborts when the lease is no longer ours: the ZooKeeper session ended or may have
   * (`SESSION_LOST`; `SESSION_CLOSED` after `session.close()`), someone else deleted its node
   * (`NODE_DELETED`), or `release()` was called on this lease (`RELEASED`, from the call on).
   * Reading it first checks what `held` checks, so a process woken from a stop past its session
   * sees it aborted on its first read.
   */
  readonly signal: AbortSignal;
  /**
   * Still ours, checked now: `release()` not called on this lease, its node not known deleted,
   * and the session unable to have expired yet by this process's clock (docs/semaphore.md). False
   * does not mean released: release every lease once, a lost one too.
   */
  readonly held: boolean;
  /**
   * Gives the lease back: from the call on it is not held and its signal is aborted (`RELEASED`);
   * resolves once its node is deleted (the node of an `acquireMany` goes with its last lease).
   * Throws `NOT_OWNER` if it was already released (or is being released); not if it was lost. When
   * the server refuses to delete the node (`NO_AUTH`...) it rejects with ReleaseFailedError
   * (`RELEASE_FAILED`, the refusal as `error`): the node is still ours, and `release()` on this
   * lease tries again once the cause is fixed (docs/errors.md, "Releasing").
   */
  release(): Promise<void>;
}

/** A lease node and what gives it back once none of its leases is held any more. */
export class LeaseNode {
  private outstanding: number;
  constructor(
    /** The queue that granted the node (it checks a lease as it checks a grant). */
    readonly queue: LockQueue,
    readonly seat: QueueSeat,
    readonly data: Uint8Array | null,
    weight: number,
    private readonly giveBack: () => Promise<void>,
  ) {
    this.outstanding = weight;
  }

  /**
   * Called by each of its leases once; deletes the node with the last one. A delete the server
   * refuses leaves the node and that lease outstanding.
   */
  async releaseOne(): Promise<void> {
    if (this.outstanding > 1) {
      this.outstanding--;
      return;
    }
    await this.giveBack();
    this.outstanding = 0;
  }

  /** `weight` lease objects backed by this node. */
  leases(weight: number): Lease[] {
    return Array.from({ length: weight }, () => new NodeLease(this));
  }
}

/** Whether `release()` may still be called on `lease`: never called, or its delete was refused. */
export function isUnreleased(lease: Lease): boolean {
  return lease instanceof NodeLease ? lease.unreleased : lease.held;
}

class NodeLease extends SeatHandle implements Lease {
  private releasing = false;
  /** The server refused the delete of the node at this lease's release: it may release again. */
  private refused = false;
  constructor(private readonly node: LeaseNode) {
    super(node.queue, node.seat);
  }
  get path(): string {
    return this.node.seat.path;
  }
  get fencingToken(): bigint {
    return this.node.seat.fencingToken;
  }
  get grantedAt(): number {
    return this.node.seat.grantedAt;
  }
  get data(): Uint8Array | null {
    return this.node.data;
  }
  /** @internal See {@link isUnreleased}. */
  get unreleased(): boolean {
    return !this.released || this.refused;
  }
  async release(): Promise<void> {
    if (!this.unreleased) throw new NotOwnerError(`lease ${this.path} was already released`);
    if (this.releasing) throw new NotOwnerError(`lease ${this.path} is being released`);
    this.endByRelease();
    this.releasing = true;
    this.refused = false;
    try {
      await this.node.releaseOne();
    } catch (err) {
      this.refused = true;
      throw new ReleaseFailedError(
        `lease ${this.path}: its node could not be deleted (${String(err)}): the node is still ours, though this lease is no longer held; release again with err.handle.release() once the cause is fixed, or close the session`,
        this,
        err,
      );
    } finally {
      this.releasing = false;
    }
  }
  [Symbol.asyncDispose](): Promise<void> {
    return disposeHandle(this, `lease ${this.path}: await using`, () => this.unreleased);
  }
}
