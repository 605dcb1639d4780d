/**
 * A fleet of participant processes (test/workers/leaderWorker.ts) in one election, each optionally
 * behind its own fault proxies (one per server), and what they recorded: every term of leadership
 * as a hold for the overlap checker (`checkHolds`: no two participants whose leadership signal has
 * not aborted at the same time, save where a fault takes leadership away from a process that
 * cannot be told first), the faults, the deaths.
 */
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import {
  checkHolds,
  FaultProxy,
  MachineLoad,
  NemesisProcess,
  type CheckResult,
  type ExpiryFault,
  type Hold,
  type NodeDeleteFault,
  type PauseFault,
  type TimeBound,
  type WorkerLine,
} from '@zk-recipes/testing';

const WORKER = fileURLToPath(new URL('../workers/leaderWorker.ts', import.meta.url));
const now = (): bigint => process.hrtime.bigint();
export const NS_PER_MS = 1_000_000n;

export interface FleetOptions {
  /** The servers (the proxies forward to them when `proxied`). */
  connectString: string;
  path: string;
  count: number;
  sessionTimeoutMs: number;
  recipe: 'latch' | 'selector';
  /** Churn: a leader resigns after [min, max] ms. */
  churn?: readonly [number, number];
  /** Each process behind fault proxies of its own, one per server. */
  proxied?: boolean;
}

/** A term as a process recorded it. */
export interface TermRecord extends Hold {
  token: bigint;
  /** The last moment its `held` said true. */
  lastHeld?: bigint;
  reason?: string;
}

export class Fleet {
  readonly processes: NemesisProcess[] = [];
  /** Per process slot, its proxies (one per server), when proxied. */
  readonly proxies: FaultProxy[][] = [];
  readonly terms = new Map<string, TermRecord>();
  readonly credentials = new Map<string, { session: string; password: string }>();
  readonly deaths: Record<string, bigint> = {};
  readonly deletes: NodeDeleteFault[] = [];
  readonly expiries: ExpiryFault[] = [];
  readonly pauses: PauseFault[] = [];
  readonly lines: WorkerLine[] = [];
  /** The machine's load while the fleet runs: its time bounds are judged against it. */
  readonly load = MachineLoad.start();
  private readonly listeners = new Set<() => void>();

  private constructor(readonly options: FleetOptions) {}

  static async start(options: FleetOptions): Promise<Fleet> {
    const fleet = new Fleet(options);
    for (let slot = 0; slot < options.count; slot++) await fleet.spawn(slot);
    await fleet.until(() => fleet.credentials.size >= options.count, 60_000, 'every process connected');
    return fleet;
  }

  /** Starts the process of `slot` (again, after a kill: a new name). */
  async spawn(slot: number): Promise<NemesisProcess> {
    const servers = this.options.connectString.split(',');
    if (this.options.proxied === true && this.proxies[slot] === undefined) {
      this.proxies[slot] = await Promise.all(servers.map((hp) => FaultProxy.start({ targetPort: Number(hp.slice(hp.lastIndexOf(':') + 1)) })));
    }
    const connect = this.options.proxied === true ? this.proxies[slot]!.map((p) => p.connectString).join(',') : this.options.connectString;
    const incarnation = this.processes.filter((p) => p.slot === slot).length;
    const args = [connect, this.options.path, String(this.options.sessionTimeoutMs), this.options.recipe, ...(this.options.churn ? [this.options.churn.join(',')] : [])];
    const proc = new NemesisProcess(`p${slot}.${incarnation}`, slot, WORKER, args, (line) => this.onLine(line));
    this.processes.push(proc);
    return proc;
  }

  private onLine(line: WorkerLine): void {
    this.lines.push(line);
    const key = `${line.worker}#${String(line['id'])}`;
    if (line.type === 'session') this.credentials.set(line.worker, { session: String(line['session']), password: String(line['password']) });
    if (line.type === 'leader') {
      this.terms.set(key, {
        worker: line.worker,
        id: Number(line['id']),
        path: String(line['node']),
        session: String(line['session']),
        granted: BigInt(String(line['t'])),
        end: null,
        token: BigInt(String(line['token'])),
      });
    }
    if (line.type === 'section') {
      const term = this.terms.get(key);
      if (term !== undefined) {
        term.end = BigInt(String(line['end']));
        term.lastHeld = BigInt(String(line['lastHeld']));
        if (line['abortedAt'] !== undefined) term.abortedAt = BigInt(String(line['abortedAt']));
        if (line['reason'] !== undefined) term.reason = String(line['reason']);
      }
    }
    for (const listener of [...this.listeners]) listener();
  }

  /** Resolves once `condition()` holds (checked on every line), rejects after `timeoutMs`. */
  until<T>(condition: () => T | undefined | false, timeoutMs: number, what: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const value = condition();
        if (value === undefined || value === false) return;
        this.listeners.delete(check);
        clearTimeout(timer);
        resolve(value);
      };
      const timer = setTimeout(() => {
        this.listeners.delete(check);
        reject(new Error(`fleet: not within ${timeoutMs} ms: ${what}\n${this.describe()}`));
      }, timeoutMs);
      this.listeners.add(check);
      check();
    });
  }

  /** Terms begun and not ended, by process still alive. */
  openTerms(): TermRecord[] {
    return [...this.terms.values()].filter((t) => t.end === null && this.deaths[t.worker] === undefined);
  }

  /** The next term granted after `after` (by a process other than `not`, if given). */
  nextTerm(after: bigint, timeoutMs: number, not?: string): Promise<TermRecord> {
    return this.until(
      () => [...this.terms.values()].filter((t) => t.granted > after && t.worker !== not).sort((a, b) => (a.granted < b.granted ? -1 : 1))[0],
      timeoutMs,
      `a term granted after ${after}${not ? ` to another process than ${not}` : ''}`,
    );
  }

  /** The one open term (waits for a leader). */
  leader(timeoutMs = 30_000): Promise<TermRecord> {
    return this.until(() => this.openTerms()[0], timeoutMs, 'a leader');
  }

  process(worker: string): NemesisProcess {
    const proc = this.processes.find((p) => p.name === worker);
    if (proc === undefined) throw new Error(`fleet: no process ${worker}`);
    return proc;
  }

  /** SIGKILL; resolves with the moment it was seen dead. */
  async kill(worker: string): Promise<bigint> {
    const proc = this.process(worker);
    proc.signal('SIGKILL');
    await proc.exited;
    this.deaths[worker] = proc.exitedAt!;
    return proc.exitedAt!;
  }

  /** SIGSTOP for `ms`, then SIGCONT; recorded as a pause. */
  async pause(worker: string, ms: number): Promise<PauseFault> {
    const proc = this.process(worker);
    const start = now();
    proc.signal('SIGSTOP');
    await new Promise((resolve) => setTimeout(resolve, ms));
    const end = now();
    proc.signal('SIGCONT');
    const pause = { worker, start, end };
    this.pauses.push(pause);
    return pause;
  }

  /** Tells one process a command (`resign`). */
  tell(worker: string, command: string): void {
    this.process(worker).child.stdin!.write(`${command}\n`);
  }

  /** Stops every live process (each leaves the election and closes its session) and the proxies. */
  async stop(): Promise<bigint> {
    for (const p of this.processes) p.signal('SIGCONT');
    const stopped = await Promise.all(this.processes.filter((p) => p.running).map(async (p) => ({ p, ok: await p.stop(20_000) })));
    const failed = stopped.filter(({ ok }) => !ok).map(({ p }) => `${p.name} (exit ${p.exitCode ?? p.exitSignal}): ${p.stderr.trim().slice(-2000)}`);
    await Promise.all(this.proxies.flat().map((p) => p.close()));
    this.load.stop();
    if (failed.length > 0) throw new Error(`fleet: processes did not stop cleanly:\n${failed.join('\n')}`);
    return now();
  }

  /** The overlap check over every term, with the faults' allowances. */
  check(runEnd: bigint): CheckResult {
    return checkHolds({
      holds: [...this.terms.values()],
      deaths: this.deaths,
      runEnd,
      deletes: this.deletes,
      expiries: this.expiries,
      pauses: this.pauses,
      sessionTimeoutMs: this.options.sessionTimeoutMs,
    });
  }

  /**
   * Leadership, exact: no two participants whose leadership signal had not aborted at the same
   * time, save where a fault took leadership from a process that could not be told first.
   */
  expectOneLeaderAtATime(runEnd: bigint): void {
    const { overlaps } = this.check(runEnd);
    const what = overlaps.map((o) => `${o.holds.map((h) => `${h.worker}#${h.id}`).join(' and ')} for ${msBetween(o.start, o.end).toFixed(1)} ms`).join('; ');
    expect(overlaps, `LEADERSHIP BROKEN: two leaders at once: ${what}\n${this.describe()}`).toEqual([]);
  }

  /**
   * A time bound, judged against this machine's load from `from` to `to` ({@link MachineLoad}):
   * a failure reads "slow: <what> took X ms, over its bound of Y ms (...)", with the terms.
   */
  expectWithin(what: string, from: bigint, to: bigint, bound: TimeBound): void {
    const verdict = this.load.judge(what, msBetween(from, to), bound, from - 1000n * NS_PER_MS, to);
    expect(verdict.tookMs, `${verdict.message}\n${this.describe()}`).toBeLessThanOrEqual(verdict.boundMs);
  }

  /** Terms in grant order, for messages. */
  describe(): string {
    const t0 = [...this.terms.values()].reduce<bigint | undefined>((min, t) => (min === undefined || t.granted < min ? t.granted : min), undefined) ?? 0n;
    const s = (t: bigint | null | undefined): string => (t === null || t === undefined ? '-' : `${(Number(t - t0) / 1e6).toFixed(1)}ms`);
    const terms = [...this.terms.values()]
      .sort((a, b) => (a.granted < b.granted ? -1 : 1))
      .map((t) => `${t.worker}#${t.id} [${s(t.granted)}, ${s(t.end)}] token ${t.token}${t.reason ? ` ${t.reason}` : ''}${t.lastHeld !== undefined ? ` lastHeld ${s(t.lastHeld)}` : ''}`);
    const errors = this.lines.filter((l) => l.type === 'error').map((l) => `${l.worker}: ${String(l['message'])}`);
    return [...terms, ...errors, ...this.processes.filter((p) => p.stderr.trim() !== '').map((p) => `${p.name} stderr: ${p.stderr.trim().slice(-1500)}`)].join('\n');
  }
}

/** Milliseconds between two CLOCK_MONOTONIC readings. */
export const msBetween = (from: bigint, to: bigint): number => Number(to - from) / 1e6;
