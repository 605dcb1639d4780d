/**
 * @zk-recipes/leader: leader election on ZooKeeper that never has two leaders — Curator's
 * `LeaderLatch` and `LeaderSelector`, on the lock-queue engine of `@zk-recipes/core`.
 *
 * @module @zk-recipes/leader
 */
export { LeaderLatch, type LatchState } from './LeaderLatch.js';
export { LeaderSelector, type LeaderFunction } from './LeaderSelector.js';
export type { LeaderEvents } from './Election.js';
export type { Leadership } from './Leadership.js';
export { participantOf, type Participant } from './participants.js';
export { LeadershipTimeoutError, ElectionClosedError } from './errors.js';
export { LATCH_KIND, SELECTOR_KIND } from './kinds.js';
export type { LeaderLatchOptions, LeaderSelectorOptions, LeadershipOptions, RunOptions } from './options.js';
