import { currentFrame, type OwnerFrame } from '../context/ownerContext.js';

/**
 * The acquisitions one lock object holds in this process, each owned by an async context
 * (docs/architecture.md, "Ownership by async context"). Through it a lock re-enters, releases
 * without a handle and answers `isOwnedByCurrentContext()`; it keeps each frame's `holds` count,
 * which lets frames that hold nothing drop out of later chains.
 */
export class OwnerHoldings<T extends { readonly frame: OwnerFrame }> {
  private readonly holdings = new Set<T>();

  /** How many acquisitions are held. */
  get size(): number {
    return this.holdings.size;
  }

  /** Records `holding`; true when it is the first (the lock starts relaying connection news). */
  add(holding: T): boolean {
    holding.frame.holds++;
    this.holdings.add(holding);
    return this.holdings.size === 1;
  }

  /** Forgets `holding`; true when it was the last one (the lock stops relaying). */
  delete(holding: T): boolean {
    if (!this.holdings.delete(holding)) return false;
    holding.frame.holds--;
    return this.holdings.size === 0;
  }

  /** True if some holding satisfies `predicate`. */
  some(predicate: (holding: T) => boolean): boolean {
    for (const holding of this.holdings) if (predicate(holding)) return true;
    return false;
  }

  /**
   * The holding of the calling async context that `usable` accepts: one of its own frame first,
   * then of its ancestors' (a holder's callees own what it holds).
   */
  ofCurrentContext(usable: (holding: T) => boolean): T | undefined {
    const frame = currentFrame();
    if (frame === undefined) return undefined;
    for (const ancestor of frame.chain()) {
      for (const holding of this.holdings) if (holding.frame === ancestor && usable(holding)) return holding;
    }
    return undefined;
  }
}
