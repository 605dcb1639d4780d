/**
 * Deadlines that hold while the server stalls (docs/architecture.md, "Deadlines"): the scenario
 * for any recipe. The server process is stopped (SIGSTOP: its connections stay open and nothing
 * answers) and acquisitions are started against it: some with a deadline on fresh paths (their
 * creates never answer), some aborted by their caller, some tries (`timeoutMs: 0`), and two waiters
 * already queued behind a holder, one whose deadline passes during the stall and one aborted during
 * it. Each must settle by its deadline (or its abort) plus the slack the docs promise, never with a
 * grant; once the server resumes, no node of theirs may stay.
 */
import { describe, expect, it } from 'vitest';
import { SETTLE_SLACK_MS, ZkSession } from '@zk-recipes/core';
import { MachineLoad, pollUntil, TestingServer } from '@zk-recipes/testing';
import { codeOf, untilQueue, within } from './adversary.js';

/** What a recipe lends the scenario: how to take it, and where its contenders' nodes live. */
export interface StallRecipe {
  acquire(session: ZkSession, path: string, options: { timeoutMs?: number; signal?: AbortSignal }): Promise<{ release(): Promise<void> }>;
  /** The directory a contender of `path` creates its (first) node in (to see the waiter queued). */
  queueDir(path: string): string;
  /**
   * Every directory a contender of `path` creates nodes in, if more than `queueDir` (a multi-lock's
   * members, a `curator`-layout semaphore's internal lock).
   */
  queueDirs?(path: string): string[];
}

/** One acquisition's end, in ms after its call. */
export interface StalledOutcome {
  /** Started during the stall (`deadline`, `abort`, `try`), or queued behind the holder before it. */
  kind: 'deadline' | 'abort' | 'try' | 'queued' | 'queued-abort';
  /** When its deadline or abort was due, after the call. */
  dueMs: number;
  settledMs: number;
  granted: boolean;
  code: string | undefined;
}

/**
 * The slack the docs promise past a deadline or an abort (`SETTLE_SLACK_MS`, docs/architecture.md,
 * "Deadlines"), written out rather than read from the library: a slack raised again fails here.
 */
export const PROMISED_SLACK_MS = 50;

/**
 * Scheduling lateness tolerated beside the slack, ms: 400 on an idle machine (timers firing late),
 * multiplied by the machine's slowness now (docs/testing.md, "Time bounds on a busy machine").
 */
export function jitterMs(): number {
  return Math.round(400 * MachineLoad.now().factor);
}

/** The timeouts and aborts started during the stall: as in the report that found the bug. */
const DEADLINE_MS = 1500;
const ABORT_AFTER_MS = 1000;
const EACH = 4;

/** What the scenario saw; `leftover` counts the nodes still in its queues, `end` stops its server. */
export interface StallScenario {
  outcomes: StalledOutcome[];
  leftover(): Promise<number>;
  end(): Promise<void>;
}

export async function deadlinesUnderStall(recipe: StallRecipe, o: { sessionTimeoutMs: number; stallMs: number; root: string }): Promise<StallScenario> {
  // Ticks of 1 s: the server grants sessions of 2..20 s.
  const server = await TestingServer.start({ tickTimeMs: 1000, forceSync: false });
  const sessions: ZkSession[] = [];
  const end = async (): Promise<void> => {
    await server.resume().catch(() => undefined);
    await Promise.all(sessions.map((s) => s.close().catch(() => undefined)));
    await server.stop();
  };
  const connect = async (sessionTimeoutMs: number): Promise<ZkSession> => {
    const session = await ZkSession.connect({ connectString: server.connectString, sessionTimeoutMs });
    sessions.push(session);
    return session;
  };
  try {
    const session = await connect(o.sessionTimeoutMs);
    const other = await connect(20_000);
    // A waiter queued behind another session's holder, its deadline passing during the stall.
    const heldPath = `${o.root}/held`;
    const holder = await recipe.acquire(other, heldPath, {});
    const queuedDeadlineMs = 2000;
    const queuedAt = performance.now();
    const queued = recipe.acquire(session, heldPath, { timeoutMs: queuedDeadlineMs });
    queued.catch(() => undefined);
    await untilQueue(other, recipe.queueDir(heldPath), 2);
    // A second waiter behind it, aborted during the stall: its delete is what the stall holds.
    const heldDirs = recipe.queueDirs?.(heldPath) ?? [recipe.queueDir(heldPath)];
    const before = await nodesIn(other, heldDirs);
    const queuedAbortAfterMs = 1500;
    const giveUp = new AbortController();
    const queuedAbortAt = performance.now();
    const queuedAbort = recipe.acquire(session, heldPath, { signal: giveUp.signal });
    queuedAbort.catch(() => undefined);
    await pollUntil(async () => (await nodesIn(other, heldDirs)) > before, 15_000, 'the second waiter queued');

    await server.pause();
    const pausedAt = performance.now();
    const queuedAbortDueMs = pausedAt - queuedAbortAt + queuedAbortAfterMs;
    setTimeout(() => giveUp.abort(new Error('caller gave up')), queuedAbortAfterMs);
    const outcomes: Array<Promise<StalledOutcome>> = [settle('queued', queuedAt, queuedDeadlineMs, queued), settle('queued-abort', queuedAbortAt, queuedAbortDueMs, queuedAbort)];
    for (let i = 0; i < EACH; i++) {
      const startedAt = performance.now();
      outcomes.push(settle('deadline', startedAt, DEADLINE_MS, recipe.acquire(session, `${o.root}/deadline-${i}`, { timeoutMs: DEADLINE_MS })));
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error('caller gave up')), ABORT_AFTER_MS);
      outcomes.push(settle('abort', startedAt, ABORT_AFTER_MS, recipe.acquire(session, `${o.root}/abort-${i}`, { signal: controller.signal })));
      // A try gets one look at the queue, for no longer than the slack: a stalled server gives none.
      outcomes.push(settle('try', performance.now(), 0, recipe.acquire(session, `${o.root}/try-${i}`, { timeoutMs: 0 })));
    }
    const settled = await within(Promise.all(outcomes), o.stallMs, 'every acquisition to settle during the stall');
    // The stall goes on: nothing may be granted late either (a late grant is in `settled` as granted).
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, o.stallMs - (performance.now() - pausedAt))));
    await server.resume();
    await holder.release().catch(() => undefined);
    const leftover = async (): Promise<number> => {
      let count = 0;
      for (const dir of paths(o.root).flatMap((path) => recipe.queueDirs?.(path) ?? [recipe.queueDir(path)])) {
        const children = await other.getChildren(dir).then(
          (listing) => listing.children,
          () => [], // never created, or reaped: nothing left in it
        );
        count += children.length;
      }
      return count;
    };
    return { outcomes: settled, leftover, end };
  } catch (err) {
    await end();
    throw err;
  }
}

function paths(root: string): string[] {
  const list = [`${root}/held`];
  for (let i = 0; i < EACH; i++) list.push(`${root}/deadline-${i}`, `${root}/abort-${i}`, `${root}/try-${i}`);
  return list;
}

/** How many nodes `dirs` hold together (a directory not made yet holds none). */
async function nodesIn(session: ZkSession, dirs: string[]): Promise<number> {
  let count = 0;
  for (const dir of dirs) count += await session.getChildren(dir).then((listing) => listing.children.length, () => 0);
  return count;
}

/**
 * The verdict on every outcome: rejected with the abort's or the deadline's code, never granted
 * (exclusion: a grant during the stall is a lock nobody may hold), and settled by its deadline or
 * abort plus the promised slack and the scheduling jitter (a time bound; the message has the figures).
 */
function expectEachSettledInTime(outcomes: readonly StalledOutcome[], timeoutCode = 'LOCK_TIMEOUT'): void {
  for (const outcome of outcomes) {
    const aborted = outcome.kind === 'abort' || outcome.kind === 'queued-abort';
    expect(outcome, `not granted, rejected as due: ${JSON.stringify(outcome)}`).toMatchObject({ granted: false, code: aborted ? 'ABORTED' : timeoutCode });
  }
  const jitter = jitterMs();
  const late = outcomes.filter((outcome) => outcome.settledMs > outcome.dueMs + PROMISED_SLACK_MS + jitter);
  expect(late, `time bound: settled later than due + ${PROMISED_SLACK_MS} ms slack + ${jitter} ms jitter (400 ms × the machine's slowness; library slack ${SETTLE_SLACK_MS} ms): ${JSON.stringify(outcomes)}`).toEqual([]);
}

async function settle(kind: StalledOutcome['kind'], startedAt: number, dueMs: number, acquisition: Promise<{ release(): Promise<void> }>): Promise<StalledOutcome> {
  try {
    const held = await acquisition;
    const settledMs = performance.now() - startedAt;
    void held.release().catch(() => undefined);
    return { kind, dueMs, settledMs, granted: true, code: undefined };
  } catch (err) {
    return { kind, dueMs, settledMs: performance.now() - startedAt, granted: false, code: codeOf(err) };
  }
}

/** The stalls every recipe is held to: one its 4 s sessions do not outlive, one its 15 s sessions do. */
export const STALLS = [
  { sessionTimeoutMs: 4000, stallMs: 6000 },
  { sessionTimeoutMs: 15_000, stallMs: 12_000 },
] as const;

/**
 * The scenario as a test per stall: every acquisition settles by its deadline or abort plus the
 * slack, none is granted, and no node stays once the server resumes (a create it applies then is
 * swept: at once, or a session timeout later).
 */
export function describeUnderStall(what: string, recipe: StallRecipe, root: string, options: { timeoutCode?: string; stalls?: ReadonlyArray<(typeof STALLS)[number]> } = {}): void {
  describe.each(options.stalls ?? STALLS)(`${what} while the server stalls, $sessionTimeoutMs ms sessions, $stallMs ms stall`, ({ sessionTimeoutMs, stallMs }) => {
    it(`settles every acquisition within its deadline or abort plus the slack (${PROMISED_SLACK_MS} ms), grants none, and leaves no node`, async () => {
      const scenario = await deadlinesUnderStall(recipe, { sessionTimeoutMs, stallMs, root: `${root}/${sessionTimeoutMs}` });
      try {
        expectEachSettledInTime(scenario.outcomes, options.timeoutCode);
        await pollUntil(async () => (await scenario.leftover()) === 0, sessionTimeoutMs + 10_000, 'no node left');
      } finally {
        await scenario.end();
      }
    });
  });
}
