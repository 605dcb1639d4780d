/**
 * One participant process of the leader election tests (test/support/fleet.ts): a LeaderLatch or
 * a LeaderSelector with its own session, recording each leadership from its grant to the earlier
 * of its signal aborting and the moment it gives leadership up, on CLOCK_MONOTONIC
 * (`process.hrtime.bigint()`), comparable across processes.
 *
 * Usage: leaderWorker.ts <connectString> <path> <sessionTimeoutMs> <latch|selector> [holdMin,holdMax]
 *   holdMin,holdMax: churn: a leader resigns after a random hold in [holdMin, holdMax] ms (a latch
 *   closes and a new one joins at once; a selector's function returns and it requeues).
 *
 * Lines: `session` (id, password: for expireSession), `state`, `leader` (a term begins: `t` its
 * grant, `node`, `token`, `session`), `section` (a term ends: `start`, `end`, `abortedAt` and
 * `reason` when its signal aborted, `lastHeld`: the last time `leadership.held` said true, checked
 * every 10 ms as a leader's work would), `done`. Reads `resign` (give leadership up, join again)
 * and `stop` (leave, close the session, exit) on stdin.
 */
import { createInterface } from 'node:readline';
import { ZkSession } from '@zk-recipes/core';
import { sessionInternals } from '@zk-recipes/core/internal';
import { LeaderLatch, LeaderSelector, type Leadership } from '@zk-recipes/leader';
import { report, workerName } from '@zk-recipes/testing';

const [connectString, path, sessionArg, recipe = 'latch', churnArg] = process.argv.slice(2);
if (connectString === undefined || path === undefined) throw new Error('usage: leaderWorker.ts <connectString> <path> <sessionTimeoutMs> <latch|selector> [holdMin,holdMax]');
const worker = workerName();
const churn = churnArg === undefined ? undefined : (churnArg.split(',').map(Number) as [number, number]);
const now = (): bigint => process.hrtime.bigint();

/**
 * `performance.now()` readings on the `process.hrtime.bigint()` clock (both CLOCK_MONOTONIC): the
 * offset from the closest of several samples (one straddling a preemption would be off by it).
 */
const offset = ((): bigint => {
  let best: { offset: bigint; spread: bigint } | undefined;
  for (let i = 0; i < 20; i++) {
    const before = now();
    const ms = performance.now();
    const after = now();
    if (best === undefined || after - before < best.spread) best = { offset: (before + after) / 2n - BigInt(Math.round(ms * 1e6)), spread: after - before };
  }
  return best!.offset;
})();
const monotonic = (ms: number): bigint => offset + BigInt(Math.round(ms * 1e6));

const session = await ZkSession.connect({ connectString, sessionTimeoutMs: Number(sessionArg ?? 3000), connectionTimeoutMs: 30_000 });
const reportSession = (): void => {
  const { sessionId, password } = sessionInternals(session).credentials;
  report({ type: 'session', worker, t: now(), session: sessionId.toString('hex'), password: password.toString('hex') });
};
reportSession();
session.on('connected', reportSession);
session.on('state', (state) => report({ type: 'state', worker, t: now(), state }));

const stop = new AbortController();
/** Ends the current term's wait early (`resign`, `stop`). */
let endTerm: ((why: 'resign' | 'stop') => void) | undefined;
/**
 * Told to stop: the term ends as given up first, then the run's signal aborts. In the other order
 * a selector's term would end by its signal (`ABORTED`, the run's signal reaching the term),
 * recorded as if leadership had been taken away.
 */
const stopNow = (): void => {
  endTerm?.('stop');
  stop.abort();
};
const input = createInterface({ input: process.stdin });
input.on('line', (text) => {
  const command = text.trim();
  if (command === 'resign') endTerm?.('resign');
  if (command === 'stop') stopNow();
});
input.on('close', stopNow);

let terms = 0;
/**
 * Records one term until its signal aborts, a command, or (churn) its hold is over. Returns why
 * it ended from this process's side: `lost`, `resign` or `stop`.
 */
async function lead(leadership: Leadership): Promise<'lost' | 'resign' | 'stop'> {
  const id = terms++;
  const granted = monotonic(leadership.grantedAt);
  let abortedAt: bigint | undefined;
  let lastHeld = granted;
  report({ type: 'leader', worker, id, t: granted, node: leadership.node, token: leadership.fencingToken, session: session.sessionId });
  const why = await new Promise<'lost' | 'resign' | 'stop'>((resolve) => {
    const finish = (reason: 'lost' | 'resign' | 'stop'): void => {
      clearInterval(work);
      clearTimeout(hold);
      leadership.signal.removeEventListener('abort', onAbort);
      endTerm = undefined;
      resolve(reason);
    };
    const onAbort = (): void => {
      abortedAt ??= now();
      finish('lost');
    };
    // The leader's work: each step asks whether it still leads, as a careful leader would.
    const work = setInterval(() => {
      if (leadership.held) lastHeld = now();
    }, 10);
    const hold = churn === undefined ? undefined : setTimeout(() => finish('resign'), churn[0] + Math.random() * (churn[1] - churn[0]));
    endTerm = finish;
    if (leadership.signal.aborted) onAbort();
    else leadership.signal.addEventListener('abort', onAbort, { once: true });
    if (stop.signal.aborted) finish('stop');
  });
  const gaveUpAt = now();
  const end = abortedAt !== undefined && abortedAt < gaveUpAt ? abortedAt : gaveUpAt;
  report({
    type: 'section',
    worker,
    id,
    start: granted,
    end,
    lastHeld,
    node: leadership.node,
    token: leadership.fencingToken,
    ...(abortedAt !== undefined ? { abortedAt, reason: (leadership.signal.reason as { code?: string }).code ?? String(leadership.signal.reason) } : {}),
  });
  return why;
}

if (recipe === 'latch') {
  while (!stop.signal.aborted) {
    const latch = new LeaderLatch(session, path, { id: worker });
    latch.on('error', (err) => report({ type: 'error', worker, t: now(), code: (err as { code?: string }).code, message: String(err) }));
    latch.start();
    let resigned = false;
    while (!stop.signal.aborted && !resigned) {
      let leadership: Leadership;
      try {
        leadership = await latch.leadership({ signal: stop.signal });
      } catch {
        break;
      }
      // A lost term: the latch is back in the election by itself; wait for its next term.
      resigned = (await lead(leadership)) !== 'lost';
    }
    await latch.close();
  }
} else if (recipe === 'selector') {
  const selector = new LeaderSelector(session, path, { id: worker, autoRequeue: true });
  selector.on('error', (err) => report({ type: 'error', worker, t: now(), message: String(err) }));
  await selector.run(async (leadership) => void (await lead(leadership)), { signal: stop.signal });
  await selector.close();
} else {
  throw new Error(`leaderWorker: unknown recipe ${recipe}`);
}
input.close();
await Promise.race([session.close(), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
report({ type: 'done', worker, terms });
