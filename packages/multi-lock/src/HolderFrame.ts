import { OwnerFrame } from '@zk-recipes/core/recipe-kit';

/**
 * The owner frame of one multi-lock acquisition.
 *
 * `acquire()` must hand the caller a promise tagged with its frame at once, but the members are
 * acquired later, one after another, each continuation nesting in the previous member's frame.
 * Once all are held we re-parent this frame under the innermost member frame, so the caller's
 * continuation, whose chain now runs through every member's frame, owns the multi-lock AND each
 * member by context: it can re-enter a member directly or acquire the multi-lock again.
 * Re-parenting is safe because no code runs in this frame before the acquisition resolves.
 */
export class HolderFrame extends OwnerFrame {
  /**
   * Makes `parent` the parent of this frame (call before the acquisition resolves), skipping the
   * ancestors that hold nothing, as every frame does: a loop of multi-lock acquisitions in one
   * async function would otherwise chain each frame to all the previous ones (~5 KB each, for ever).
   */
  attachTo(parent: OwnerFrame | undefined): void {
    (this as unknown as { parent: OwnerFrame | undefined }).parent = OwnerFrame.nearestHolding(parent);
  }
}
