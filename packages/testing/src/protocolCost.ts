/**
 * Measuring what a recipe's operations cost at the wire, for tests that hold a recipe to a budget of
 * requests, writes and watch notifications: each session behind its own {@link FaultProxy}, whose
 * {@link WireTally} counts what that session sent and was sent.
 */
import { ZkSession } from '@zk-recipes/core';
import { FaultProxy } from './FaultProxy.js';
import { testConnectString } from './testConnectString.js';
import { sumTallies, tallyDelta, type WireTally } from './wireTally.js';

/** A session whose every frame passes its own proxy. */
export interface TalliedSession {
  /** The session, connected through `proxy`. */
  readonly session: ZkSession;
  /** The proxy every frame of `session` passes: read its {@link FaultProxy.tally}. */
  readonly proxy: FaultProxy;
  /** Closes the session, then the proxy. */
  close(): Promise<void>;
}

/** Connects a session through a fresh proxy in front of the first server of `connectString` (default: the tests' server). */
export async function connectTallied(options: { connectString?: string; sessionTimeoutMs?: number } = {}): Promise<TalliedSession> {
  const [host, port] = (options.connectString ?? testConnectString()).split(',')[0]!.split('/')[0]!.split(':') as [string, string];
  const proxy = await FaultProxy.start({ targetHost: host, targetPort: Number(port) });
  let session: ZkSession;
  try {
    session = await ZkSession.connect({ connectString: proxy.connectString, sessionTimeoutMs: options.sessionTimeoutMs ?? 10_000 });
  } catch (err) {
    await proxy.close();
    throw err;
  }
  return {
    session,
    proxy,
    async close() {
      await session.close();
      await proxy.close();
    },
  };
}

/** Requests, writes and notifications per operation: a tally divided by a count. */
export interface CostPer {
  /** Requests per operation ({@link WireTally.requests}). */
  requests: number;
  /** Writes per operation ({@link WireTally.writes}). */
  writes: number;
  /** Watch notifications per operation ({@link WireTally.notifications}). */
  notifications: number;
}

/** `tally`'s requests, writes and notifications divided by `count`. */
export function costPer(tally: WireTally, count: number): CostPer {
  return { requests: tally.requests / count, writes: tally.writes / count, notifications: tally.notifications / count };
}

/** How many windows {@link costOfCycles} measures at most before it gives up on a quiet one. */
const WINDOWS = 5;

/** Options of {@link costOfCycles}. */
export interface CostOfCyclesOptions {
  /**
   * `'measure-again'` (the default): a window in which a lock directory was made again
   * (`CREATE_CONTAINER`) is measured again, up to five windows. Lock directories are containers,
   * and one that lies empty between two cycles may be removed by the server's container reaper
   * (a round every minute by default, at any moment of the window): the next cycle then pays for
   * making it again, which is the server's doing, not the cycle's. Five such windows in a row
   * fail: something else remakes directories every cycle. `'counted'`: the cycles make directories
   * themselves (a `MutexSet` with `deleteIdleDirectories`), so the first window counts.
   */
  remadeDirectories?: 'measure-again' | 'counted';
}

/**
 * Runs `cycle` `count` times one after the other on `tallied`'s session and returns what they cost.
 * The cycles may leave requests unawaited (a watch armed, a node cleaned up behind the caller's
 * back): a round trip (`exists`) after the last one collects everything sent before it (the server
 * answers one session in order), and is not counted. So a deterministic cycle costs exactly the
 * same every time, and the total is `count` times that. See {@link CostOfCyclesOptions} for the
 * windows in which the container reaper removed a directory.
 */
export async function costOfCycles(tallied: TalliedSession, count: number, cycle: (i: number) => Promise<unknown>, options: CostOfCyclesOptions = {}): Promise<WireTally> {
  for (let window = 1; ; window++) {
    const tally = await costOfWindow(tallied, count, cycle);
    if (options.remadeDirectories === 'counted' || (tally.byOp['createContainer'] ?? 0) === 0) return tally;
    if (window === WINDOWS) throw new Error(`costOfCycles: a directory was made again in each of ${WINDOWS} windows of ${count} cycles (the last: ${describeTally(tally)})`);
  }
}

/** One window of {@link costOfCycles}. */
async function costOfWindow(tallied: TalliedSession, count: number, cycle: (i: number) => Promise<unknown>): Promise<WireTally> {
  const mark = tallied.proxy.tally();
  for (let i = 0; i < count; i++) await cycle(i);
  await tallied.session.exists('/');
  const used = tallied.proxy.tallySince(mark);
  const exists = (used.byOp['exists'] ?? 1) - 1;
  const byOp = { ...used.byOp };
  if (exists === 0) delete byOp['exists'];
  else byOp['exists'] = exists;
  return { ...used, requests: used.requests - 1, byOp };
}

/** One contender of {@link costOfHandOffs}: its proxy and one acquire → release of its lock. */
export interface HandOffContender {
  /** The proxy all of this contender's traffic passes. */
  readonly proxy: FaultProxy;
  /** Acquires, then releases at once (hold 0); resolves when the release is done. */
  cycle(): Promise<unknown>;
}

/** What {@link costOfHandOffs} measured. */
export interface HandOffCost {
  /** Sections completed between the two snapshots. */
  sections: number;
  /** All contenders' traffic between the two snapshots. */
  tally: WireTally;
  /** `tally` per section: requests and writes per section, notifications per release. */
  perSection: CostPer;
}

/**
 * Every contender loops `cycle()` (acquire, release at once) on one lock until `warmup + sections`
 * sections are done in all; the contenders' proxies are read when the `warmup`-th section ends and
 * when the last one does. The warm-up lets the queue fill (every contender waiting), so what is
 * measured is the steady hand-off. Cycles in flight at the two reads blur the average by at most a
 * cycle per contender: measure many sections.
 */
export async function costOfHandOffs(
  contenders: readonly HandOffContender[],
  options: {
    warmup: number;
    sections: number;
    /** Called with the proxies' reads (e.g. to count something else over the same window). */
    onWindow?: (edge: 'start' | 'end') => void;
  },
): Promise<HandOffCost> {
  const target = options.warmup + options.sections;
  const snapshot = (edge: 'start' | 'end'): WireTally[] => {
    options.onWindow?.(edge);
    return contenders.map((c) => c.proxy.tally());
  };
  let done = 0;
  let start: WireTally[] | undefined;
  let end: WireTally[] | undefined;
  if (options.warmup === 0) start = snapshot('start');
  const loop = async (c: HandOffContender): Promise<void> => {
    while (done < target) {
      await c.cycle();
      done++;
      if (done === options.warmup) start = snapshot('start');
      if (done === target) end = snapshot('end');
    }
  };
  await Promise.all(contenders.map(loop));
  const tally = sumTallies(contenders.map((_, i) => tallyDelta(end![i]!, start![i]!)));
  return { sections: options.sections, tally, perSection: costPer(tally, options.sections) };
}

/**
 * The measures of `cost` above `budget`, each as `requests 8.1 > 8` (empty when within budget):
 * for `expect(overBudget(cost, BUDGET), describeTally(tally)).toEqual([])`.
 */
export function overBudget(cost: CostPer, budget: CostPer): string[] {
  const over: string[] = [];
  for (const key of ['requests', 'writes', 'notifications'] as const) {
    if (cost[key] > budget[key] + 1e-9) over.push(`${key} ${Number(cost[key].toFixed(3))} > ${budget[key]}`);
  }
  return over;
}

/** A tally in one line, for failure messages: totals, requests by opcode, notifications by type. */
export function describeTally(tally: WireTally): string {
  return `${tally.requests} requests (${JSON.stringify(tally.byOp)}), ${tally.writes} writes, ${tally.notifications} notifications (${JSON.stringify(tally.notificationsByType)})`;
}
