/**
 * A partition a session outlives, for the tests of `suspended` then `reconnected`: the connection
 * goes silent until the session says `suspended`, and is healed at that moment, not on a timer.
 *
 * The client says `suspended` after 2/3 of the session timeout without a byte from the server (its
 * read timeout) and `lost` at 9/10 of it after the send of its last answered request: the
 * reconnection has the time between the two (1.4 s of a 6 s session). A heal on a timer set
 * before the partition (at 5 s of a 6 s session) left it what remained of that time after the
 * timer, 400 ms, which a busy machine's reconnection took longer than; a heal at the suspension
 * leaves it all of it.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { expect } from 'vitest';
import type { ConnectionState, ZkSession } from '@zk-recipes/core';
import { describeSlowness, judgeTime, MachineLoad, type FaultProxy } from '@zk-recipes/testing';

/**
 * The latest moment the client may declare `lost` after a request sent at `sentAt` was answered
 * (docs/architecture.md, "When we declare lost"): the timeout less a tenth of it, at least 100 ms. Written out
 * rather than read from the library: a client that gives up sooner fails here.
 */
function lostDeadline(sentAt: number, timeoutMs: number): number {
  return sentAt + timeoutMs - Math.max(100, Math.ceil(timeoutMs / 10));
}

/** A reconnection through a healed proxy to a local server, ms on an idle machine (a few round trips). */
const RECONNECTION_MS = 300;

/**
 * Hears from the server through `proxy` (one round trip: both the read timeout and the lost
 * deadline count from it), holds all traffic both ways until `session` says `suspended`, heals,
 * and returns once the session says `reconnected`. Fails if the session says anything else first,
 * or `lost` before `reconnected`: as "slow:" where the machine's measured slowness or a stall of
 * this process explains it (the deadline came before a reconnection could), else as the broken
 * session it is.
 */
export async function partitionUntilSuspended(session: ZkSession, proxy: FaultProxy): Promise<void> {
  const states: ConnectionState[] = [];
  let heard: () => void = () => undefined;
  const onState = (state: ConnectionState): void => {
    states.push(state);
    heard();
  };
  const until = (done: () => boolean): Promise<void> =>
    new Promise<void>((resolve) => {
      heard = () => {
        if (done()) resolve();
      };
      heard();
    });
  // How late this process's event loop ran meanwhile (a paused or starved process).
  const loop = monitorEventLoopDelay({ resolution: 10 });
  const timeoutMs = session.negotiatedSessionTimeoutMs;
  session.on('state', onState);
  try {
    const sentAt = performance.now();
    await session.exists('/');
    const repliedAt = performance.now();
    const deadline = lostDeadline(sentAt, timeoutMs);
    loop.enable();
    void proxy.blackhole();
    await until(() => states.length > 0);
    let healedAt: number | undefined;
    if (states[0] === 'suspended') {
      // The session's listeners (the locks' relays) heard `suspended` before this line runs.
      healedAt = performance.now();
      proxy.heal();
      await until(() => states.some((state) => state !== 'suspended'));
    }
    const at = performance.now();
    loop.disable();
    if (states.includes('lost')) {
      expect(at, `lost ${(deadline - at).toFixed(0)} ms before its deadline (the send of its last answered request + 9/10 of the session timeout): ${states.join(' → ')}`).toBeGreaterThanOrEqual(deadline);
      const stalledMs = loop.max / 1e6;
      const figures = `machine ${describeSlowness(MachineLoad.now())}; this process's event loop ran up to ${stalledMs.toFixed(0)} ms late`;
      if (healedAt === undefined) {
        // `suspended` was due at the read timeout (2/3 of the session timeout) after the reply, give
        // or take the watchdog's polling (at most 250 ms): a correct client misses it only if its
        // event loop stood still from then until past the lost deadline.
        const missedMs = deadline - (repliedAt + Math.floor((timeoutMs * 2) / 3) + 250);
        expect(stalledMs, `lost with no suspended before it, though the event loop never stood still for the ${missedMs.toFixed(0)} ms from the read timeout to the lost deadline (${figures}): ${states.join(' → ')}`).toBeGreaterThanOrEqual(missedMs);
        expect.fail(`slow: the process stood still past its lost deadline before it could say suspended (${figures}): ${states.join(' → ')}`);
      }
      const leftMs = deadline - healedAt;
      const verdict = judgeTime('a reconnection', leftMs, { fixedMs: stalledMs, scaledMs: RECONNECTION_MS }, MachineLoad.now());
      expect(verdict.within, `not reconnected in the ${leftMs.toFixed(0)} ms from the heal to the lost deadline, over the ${verdict.boundMs} ms a reconnection may take on this machine (${figures}): ${states.join(' → ')}`).toBe(true);
      expect.fail(`slow: the reconnection after the heal did not complete in the ${leftMs.toFixed(0)} ms left before the lost deadline, within the ${verdict.boundMs} ms it may take on this machine (${figures}): ${states.join(' → ')}`);
    }
    expect(states, 'suspended, then the same session back').toEqual(['suspended', 'reconnected']);
  } finally {
    loop.disable();
    session.off('state', onState);
  }
}
