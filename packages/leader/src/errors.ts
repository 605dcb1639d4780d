import { ZkRecipesError, type ZkRecipesErrorOptions } from '@zk-recipes/core';

/**
 * `leadership({ timeoutMs })` (or a `LeaderSelector` run's wait) passed its deadline before this
 * participant was elected. A latch stays in the election: a later `leadership()` may still get it.
 */
export class LeadershipTimeoutError extends ZkRecipesError {
  constructor(message: string, options?: ZkRecipesErrorOptions) {
    super('LEADERSHIP_TIMEOUT', message, options);
  }
}

/**
 * The latch or selector was closed (or a latch not started yet): it is not in the election. A
 * `leadership()` or `run()` call rejects with it, and a leadership ended by `close()` aborts its
 * `signal` with it.
 */
export class ElectionClosedError extends ZkRecipesError {
  constructor(message: string, options?: ZkRecipesErrorOptions) {
    super('ELECTION_CLOSED', message, options);
  }
}
