import { NotOwnerError } from '@zk-recipes/core';
import { disposeHandle } from '@zk-recipes/core/recipe-kit';

/**
 * One lease of an {@link InterProcessSemaphore}. Release it exactly once: with `release()`, or by
 * `await using` (`Symbol.asyncDispose` releases it if still held; a release the server refuses then
 * rejects with ReleaseFailedError, `RELEASE_FAILED`, carrying this lease).
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
  /** Aborted when the lease is lost: the ZooKeeper session ended, and the node with it. */
  readonly signal: AbortSignal;
  /** True until this lease is released (still true after a release the server refused). */
  readonly held: boolean;
  /**
   * Gives the lease back. Throws `NOT_OWNER` if it was already released (or is being released); not
   * if it was lost. When the server refuses to delete the node (`NO_AUTH`...) it rejects with that
   * error and the lease stays held: release again once the cause is fixed (docs/errors.md, "Releasing").
   */
  release(): Promise<void>;
}

/** A lease node and what gives it back once none of its leases is held any more. */
export class LeaseNode {
  private outstanding: number;
  constructor(
    readonly path: string,
    readonly fencingToken: bigint,
    readonly grantedAt: number,
    readonly data: Uint8Array | null,
    readonly signal: AbortSignal,
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

class NodeLease implements Lease {
  held = true;
  private releasing = false;
  constructor(private readonly node: LeaseNode) {}
  get path(): string {
    return this.node.path;
  }
  get fencingToken(): bigint {
    return this.node.fencingToken;
  }
  get grantedAt(): number {
    return this.node.grantedAt;
  }
  get data(): Uint8Array | null {
    return this.node.data;
  }
  get signal(): AbortSignal {
    return this.node.signal;
  }
  async release(): Promise<void> {
    if (!this.held) throw new NotOwnerError(`lease ${this.node.path} was already released`);
    if (this.releasing) throw new NotOwnerError(`lease ${this.node.path} is being released`);
    this.releasing = true;
    try {
      await this.node.releaseOne();
    } finally {
      this.releasing = false;
    }
    this.held = false;
  }
  [Symbol.asyncDispose](): Promise<void> {
    return disposeHandle(this, `lease ${this.node.path}: await using`, () => this.held);
  }
}
