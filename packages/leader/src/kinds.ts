/** Node kind Curator's `LeaderLatch` writes: `_c_<uuid>-latch-<seq>`, the participant's id as data. */
export const LATCH_KIND = 'latch-';

/**
 * Node kind Curator's `LeaderSelector` writes: it is an `InterProcessMutex` queue,
 * `_c_<uuid>-lock-<seq>`, the participant's id as data.
 */
export const SELECTOR_KIND = 'lock-';
