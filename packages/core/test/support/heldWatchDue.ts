import { HELD_WATCH_DELAY_MS } from '../../src/engine/ownNode.js';

/**
 * How long after its grant a holding nobody looked at may have had its node's watch sent, by
 * `performance.now()`: the engine's timer is due `HELD_WATCH_DELAY_MS` after the grant, but Node
 * counts timers in whole milliseconds of its own clock, so one can fire up to a millisecond early
 * by ours. A cycle released sooner than this after its grant cannot have sent the watch.
 */
export const HELD_WATCH_MAY_BE_SENT_AFTER_MS = HELD_WATCH_DELAY_MS - 1;
