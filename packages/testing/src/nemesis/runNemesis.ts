/**
 * The nemesis: N worker processes contend for one lock, each through its own {@link FaultProxy}
 * per server, while a seeded schedule of faults ({@link makeSchedule}) runs against them — kills
 * (with a replacement process), pauses, partitions of both and of either direction, session
 * expiries, creates dropped with their connection, an operator's deletes and foreign writes,
 * leader failures and stalled servers of a 3-server ensemble. Then a calm tail without faults, a
 * clean stop, and the checkers over every process's records: holds ({@link checkHolds}), idle
 * gaps ({@link findIdleGaps}) and deadlines ({@link checkDeadlines}).
 *
 * The worker script receives `<connectString> <lockPath> <sessionTimeoutMs> <chatterPath>
 * ...workerArgs` and runs {@link runNemesisWorker} (with `chatterPath`).
 */
import { SETTLE_SLACK_MS } from '@zk-recipes/core';
import { expireSession } from '../expireSession.js';
import { FaultProxy } from '../FaultProxy.js';
import { describeSlowness, MachineLoad, type Slowness } from '../machineLoad.js';
import { Operator, OperatorError, REVOKE_MARKER } from '../operator.js';
import type { ClusterMember, TestingCluster } from '../TestingCluster.js';
import { checkHolds, type CheckResult, type ExpiryFault, type Hold, type HoldOverlap, type NodeDeleteFault, type PauseFault } from './checker.js';
import { checkDeadlines, type Acquisition, type DeadlineCheck, type DeadlineMiss } from './deadlines.js';
import { findIdleGaps, idleBoundMs, type IdleGap, type Wait } from './idleGaps.js';
import { NemesisProcess, type WorkerLine } from './processes.js';
import { CHATTER_NODES } from './workerLoop.js';
import { Prng } from './prng.js';
import { countKinds, ENSEMBLE_FAULTS, FAULT_KINDS, makeSchedule, type FaultKind, type FaultStep } from './schedule.js';

/** What {@link runNemesis} runs: the workers, the faults they meet, and the bounds they are held to. */
export interface NemesisOptions {
  /** Seed of the fault schedule (lane i uses seed + i): the same seed replays the same faults. */
  seed: number;
  /** Length of the fault phase, ms. */
  faultMs: number;
  /**
   * Calm tail after the last fault, ms (default 6000): sections must complete there. On a busy
   * machine it goes on, up to this × the machine's slowness, until every process had a section.
   */
  calmMs?: number;
  /** Number of contending processes (default 4). */
  workers?: number;
  /** The worker script (TypeScript, run through tsx). */
  workerScript: string;
  /** Extra arguments after `<connectString> <lockPath> <sessionTimeoutMs>`. */
  workerArgs?: readonly string[];
  /** The lock's path, as every worker is told (the operator's deletes and writes aim under it). */
  lockPath: string;
  /** The servers' own connect string (the operator and expiries use it; workers go through proxies). */
  connectString: string;
  /** The ensemble, for leader failures (omit for a single server: leader faults are left out). */
  cluster?: TestingCluster;
  /** The workers' session timeout (default 3000 ms). */
  sessionTimeoutMs?: number;
  /** Faults to draw from (default: all the setup supports). */
  kinds?: readonly FaultKind[];
  /** Holders allowed at once (default 1). */
  maxConcurrent?: number;
  /**
   * Independent schedules run side by side (default 2): lane i draws from seed + i, so faults
   * overlap (a partition while the operator deletes). A process is hit by one lane at a time, and
   * one leader failure runs at a time.
   */
  lanes?: number;
  /** Calm gap after each fault, ms, [min, max] (default: the schedule's). */
  gapMs?: readonly [number, number];
  /** Progress lines (default: none). */
  log?: (text: string) => void;
  /** The liveness bounds (see {@link idleBoundsFor}); a longer idle gap is a violation. */
  idleBoundsMs?: Partial<IdleBounds>;
  /**
   * Scheduling lateness tolerated beside `SETTLE_SLACK_MS` before an acquisition settling after its
   * deadline or abort counts as a miss (default {@link DEADLINE_TOLERANCE_MS}), on an idle machine:
   * it is multiplied by the machine's slowness over the run (see {@link NemesisResult.slowness}).
   */
  deadlineToleranceMs?: number;
}

/**
 * The deadline check's scheduling tolerance, ms, on an idle machine (it is multiplied by the
 * machine's measured slowness over the run): the library's deadline timer and the worker's
 * reading of the settlement fire late on a loaded machine (3 server JVMs and 4 workers on 2 cores,
 * beside other test files under `npm test`: quiet hand-offs took up to 140 ms in 30-minute runs, a
 * garbage collection adds its own). As the idle gaps' quiet bound; a deadline that is not honoured
 * shows up as seconds (a session timeout, or never).
 */
export const DEADLINE_TOLERANCE_MS = 500;

/** How long the lock may stay free while someone waits. */
export interface IdleBounds {
  /**
   * Ms for a gap no fault explains, on an idle machine: multiplied by the machine's slowness over
   * the gap ({@link MachineLoad}). Default 500: a hand-off is a few round trips (2 ms at p50 on
   * an idle machine); the longest quiet gaps measured in 30-minute runs were 60-140 ms (3 server
   * JVMs and 4 workers on 2 cores), and `npm test` runs the nemesis beside other test files. A
   * waiter left behind shows up as seconds.
   */
  quiet: number;
}

/**
 * The liveness bounds: a gap may last {@link IdleBounds.quiet} plus what the faults acting on it
 * may cost (`faultAllowanceMs`: a killed holder's session timeout, a pause or partition until it
 * ends or the session expires, a leader failure and an election...); see `idleBoundMs`.
 */
export function idleBoundsFor(_sessionTimeoutMs: number): IdleBounds {
  return { quiet: 500 };
}

/**
 * The ensemble a nemesis runs on ({@link TestingCluster.start} options). A follower cut off from
 * its leader keeps answering pings for up to `syncLimit × tickTime`, and the library's `lost` rule
 * covers that window only while it is below the safety margin (a tenth of the session timeout, at
 * least 100 ms: docs/operations.md). A nemesis attacks the library inside its documented limits,
 * so the ensemble keeps that window at 1 tick of 200 ms, under the 300 ms margin of the 3 s
 * sessions the nemesis uses by default.
 */
export const NEMESIS_CLUSTER = {
  /** Three servers: a quorum survives one leader failure or stalled server. */
  size: 3,
  /** zoo.cfg lines of the ensemble. */
  extraConfig: {
    /** Ticks a follower may lag its leader before it drops out: 1 (200 ms). */
    syncLimit: '1',
  },
} as const;

/** A fault as it happened. */
export interface FaultRecord {
  /** The schedule's step it carried out. */
  step: FaultStep;
  /** The lane whose schedule it came from. */
  lane: number;
  /** CLOCK_MONOTONIC ns. */
  start: bigint;
  /** When it was over (healed, resumed, or done), CLOCK_MONOTONIC ns. */
  end: bigint;
  /** The process it hit, if any. */
  worker?: string;
  /** Nodes deleted or written. */
  paths?: string[];
  /** `server-stall`: the stalled member's `myid`, and whether it led when stopped. */
  server?: {
    /** The member's `myid`. */
    id: number;
    /** Whether it was the leader when stopped. */
    leader: boolean;
  };
  /** Why it did nothing (no waiter to delete, no process holding...). */
  skipped?: string;
  /** It failed after doing part of its work (a `deleteall` cut off half-way): `paths` is that part. */
  failed?: string;
}

/** What {@link runNemesis} saw and concluded: every fault, every hold, and the checkers' verdicts. */
export interface NemesisResult {
  /** The seed the run used. */
  seed: number;
  /** CLOCK_MONOTONIC ns at the run's start (the fault log's times are relative to it). */
  t0: bigint;
  /** Length of the fault phase, ms. */
  faultMs: number;
  /** Length of the calm tail, ms: `calmMs`, or longer on a busy machine (see {@link NemesisOptions.calmMs}). */
  calmMs: number;
  /** The workers' session timeout, ms. */
  sessionTimeoutMs: number;
  /** Contending processes at a time. */
  workers: number;
  /** Processes started, replacements included. */
  processesStarted: number;
  /** Every fault of every lane as it happened, skipped ones included. */
  faults: FaultRecord[];
  /** Faults that acted, per kind. */
  counts: Record<FaultKind, number>;
  /** Holds that ended (section lines), all and in the calm tail. */
  sections: number;
  /** Of `sections`, those that started in the calm tail. */
  calmSections: number;
  /** Of `sections`, read holds a write-lock holder took by downgrading (see `NemesisHandle.downgrade`). */
  downgrades: number;
  /** Acquisitions the workers gave up on purpose (waiters leaving the queue). */
  gaveUp: number;
  /** Acquisitions that rejected, by error code (downgrades that failed as `downgrade:<code>`). */
  acquireFailures: Record<string, number>;
  /** The safety checker's result over every process's holds ({@link checkHolds}). */
  check: CheckResult;
  /** The periods with too many holders (`check.overlaps`): each one is a safety bug. */
  overlaps: HoldOverlap[];
  /** For each overlap, the faults that started within two session timeouts before it. */
  suspects: FaultRecord[][];
  /** Processes that died without being killed, or did not stop when asked. */
  problems: string[];
  /** Each process's session state changes (CLOCK_MONOTONIC ns). */
  states: Record<
    string,
    Array<{
      /** When it changed, CLOCK_MONOTONIC ns. */
      t: bigint;
      /** The state entered. */
      state: string;
    }>
  >;
  /** Liveness: every stretch with the lock free while someone waited, longest first (see {@link findIdleGaps}). */
  idleGaps: IdleGap[];
  /** For each of the ten longest idle gaps, the faults that acted within two session timeouts before it or during it. */
  idleGapFaults: FaultRecord[][];
  /** The idle gaps with no fault acting within two session timeouts before or during them, longest first. */
  quietIdleGaps: IdleGap[];
  /** The bounds the run was held to. */
  idleBounds: IdleBounds;
  /**
   * Idle gaps longer than their bound (`boundMs`, scaled by the machine's slowness over the gap):
   * the lock stayed free while someone waited for longer than faults and this machine's speed
   * explain. A liveness failure (or a machine slower than measured), never an exclusion one.
   */
  idleViolations: Array<
    IdleGap & {
      /** The bound the gap exceeded, ms. */
      boundMs: number;
      /** The machine's slowness over the gap, which scaled the bound's hand-off and faults' work. */
      slowness: number;
    }
  >;
  /** The machine's slowness over the whole run: the deadline tolerance was scaled by its factor. */
  slowness: Slowness;
  /** Every acquisition with a deadline or an abort, checked against `SETTLE_SLACK_MS` plus the tolerance (see {@link checkDeadlines}). */
  deadlines: DeadlineCheck;
  /** The misses: acquisitions that settled later than their deadline or abort allows (or never): each one is a bug. */
  deadlineMisses: DeadlineMiss[];
  /** For each miss, the faults that acted between its call and its settling (or its bound). */
  deadlineMissFaults: FaultRecord[][];
  /** The slack and the tolerance the deadlines were held to, ms. */
  deadlineAllowance: {
    /** The library's settle slack (`SETTLE_SLACK_MS`), ms. */
    slackMs: number;
    /** The scheduling tolerance added to it, ms (`deadlineToleranceMs` × the run's slowness). */
    toleranceMs: number;
  };
}

const now = (): bigint => process.hrtime.bigint();
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const NS_PER_MS = 1_000_000n;
/** ZooKeeper's CREATE2 opcode: every lock node's create (`ZkSession` sends no plain CREATE). */
const OP_CREATE2 = 15;

function portsOf(connectString: string): number[] {
  return connectString.split(',').map((hp) => Number(hp.slice(hp.lastIndexOf(':') + 1)));
}

/** Runs one nemesis from start to verdict. Never throws for an overlap: read `overlaps`. */
export async function runNemesis(options: NemesisOptions): Promise<NemesisResult> {
  const workers = options.workers ?? 4;
  const sessionTimeoutMs = options.sessionTimeoutMs ?? 3000;
  const calmMs = options.calmMs ?? 6000;
  const log = options.log ?? (() => undefined);
  const kinds = (options.kinds ?? FAULT_KINDS).filter((k) => options.cluster !== undefined || !ENSEMBLE_FAULTS.includes(k));
  const lanes = options.lanes ?? 2;
  const schedules = Array.from({ length: lanes }, (_, lane) =>
    makeSchedule({ seed: options.seed + lane, durationMs: options.faultMs, sessionTimeoutMs, kinds, ...(options.gapMs ? { gapMs: options.gapMs } : {}) }),
  );
  const ports = portsOf(options.connectString);
  // How loaded the machine is, from the start: the time bounds are judged against it.
  const load = MachineLoad.start();
  const t0 = now();
  const ms = (t: bigint): string => `${(Number(t - t0) / 1e9).toFixed(2)}s`;

  // ------------------------------------------------------------------ what the workers tell us
  const holds = new Map<string, Hold>();
  const holding = new Map<string, string>(); // worker -> path it holds now
  const credentials = new Map<string, { session: string; password: string }>();
  const acquireFailures: Record<string, number> = {};
  let sections = 0;
  let downgrades = 0;
  let gaveUp = 0;
  const states: Record<string, Array<{ t: bigint; state: string }>> = {};
  let calmStart: bigint | undefined;
  /** When the calm tail ended: the workers are told to stop, and their waits end with that. */
  let calmEnd: bigint | undefined;
  let calmSections = 0;
  let sessionsUp = 0;
  let allUp: () => void = () => undefined;
  const up = new Promise<void>((resolve) => (allUp = resolve));
  const waits = new Map<string, Wait>();
  const acquisitions = new Map<string, Acquisition>();
  const optionalTime = (v: unknown): bigint | undefined => (v === undefined ? undefined : BigInt(String(v)));
  /** A line that ends an acquisition: its timing, for the deadline check. */
  const settle = (key: string, line: WorkerLine, granted: boolean): void => {
    const a = acquisitions.get(key);
    if (a === undefined || line['settledAt'] === undefined) return;
    a.settledAt = BigInt(String(line['settledAt']));
    const abortedAt = optionalTime(line['abortedAt']);
    if (abortedAt !== undefined) a.abortedAt = abortedAt;
    if (granted) a.grantedAt = BigInt(String(line['t']));
    else a.code = String(line['code']);
  };
  const waiting = new Map<string, Wait>(); // worker -> its open wait
  const endWait = (worker: string, t: bigint): void => {
    const open = waiting.get(worker);
    if (open === undefined) return;
    open.end = t;
    waiting.delete(worker);
  };
  const onLine = (line: WorkerLine): void => {
    const key = `${line.worker}#${String(line['id'])}`;
    if (line.type === 'granted' || line.type === 'gave-up' || line.type === 'acquire-failed') endWait(line.worker, BigInt(String(line['t'])));
    switch (line.type) {
      case 'acquiring': {
        const wait: Wait = { worker: line.worker, id: Number(line['id']), start: BigInt(String(line['t'])), end: null };
        waits.set(key, wait);
        waiting.set(line.worker, wait);
        const deadlineAt = optionalTime(line['deadlineAt']);
        acquisitions.set(key, { worker: line.worker, id: wait.id, calledAt: wait.start, settledAt: null, ...(deadlineAt !== undefined ? { deadlineAt } : {}) });
        break;
      }
      case 'session':
        if (!credentials.has(line.worker) && ++sessionsUp >= workers) allUp();
        credentials.set(line.worker, { session: String(line['session']), password: String(line['password']) });
        break;
      case 'granted':
        holds.set(key, {
          worker: line.worker,
          id: Number(line['id']),
          path: String(line['path']),
          session: String(line['session']),
          granted: BigInt(String(line['t'])),
          end: null,
          ...(line['shared'] === true ? { shared: true } : {}),
        });
        holding.set(line.worker, String(line['path']));
        if (line['downgrade'] === true) downgrades++;
        settle(key, line, true);
        break;
      case 'section': {
        const hold = holds.get(key);
        if (hold) {
          hold.end = BigInt(String(line['end']));
          if (line['abortedAt'] !== undefined) hold.abortedAt = BigInt(String(line['abortedAt']));
          if (line['abortedAt'] !== undefined) hold.note = `signal aborted ${(Number(BigInt(String(line['abortedAt'])) - hold.granted) / 1e6).toFixed(1)} ms after the grant: ${String(line['reason'])}`;
        }
        holding.delete(line.worker);
        sections++;
        if (calmStart !== undefined && BigInt(String(line['start'])) >= calmStart) calmSections++;
        break;
      }
      case 'state':
        (states[line.worker] ??= []).push({ t: BigInt(String(line['t'])), state: String(line['state']) });
        break;
      case 'gave-up':
        gaveUp++;
        settle(key, line, false);
        break;
      case 'acquire-failed': {
        const code = String(line['code']);
        acquireFailures[code] = (acquireFailures[code] ?? 0) + 1;
        settle(key, line, false);
        break;
      }
      case 'downgrade-failed': {
        const code = `downgrade:${String(line['code'])}`;
        acquireFailures[code] = (acquireFailures[code] ?? 0) + 1;
        break;
      }
      case 'stopped':
        settle(key, line, false);
        break;
    }
  };

  // ------------------------------------------------------------------ processes and proxies
  const proxies: FaultProxy[][] = [];
  const slots: NemesisProcess[] = [];
  const all: NemesisProcess[] = [];
  const killed = new Set<NemesisProcess>();
  const incarnation: number[] = [];
  const start = (slot: number): NemesisProcess => {
    incarnation[slot] = (incarnation[slot] ?? -1) + 1;
    const connect = proxies[slot]!.map((p) => p.connectString).join(',');
    const proc = new NemesisProcess(
      `w${slot}.${incarnation[slot]}`,
      slot,
      options.workerScript,
      [connect, options.lockPath, String(sessionTimeoutMs), `${options.lockPath}.chatter`, ...(options.workerArgs ?? [])],
      onLine,
    );
    slots[slot] = proc;
    all.push(proc);
    return proc;
  };

  const operator = await Operator.connect({ connectString: options.connectString, sessionTimeoutMs: 10_000 });
  const deletes: NodeDeleteFault[] = [];
  const expiries: ExpiryFault[] = [];
  const pauses: PauseFault[] = [];
  const faults: FaultRecord[] = [];
  const problems: string[] = [];
  try {
    for (let slot = 0; slot < workers; slot++) {
      proxies.push(await Promise.all(ports.map((port) => FaultProxy.start({ targetPort: port }))));
    }
    for (let slot = 0; slot < workers; slot++) start(slot);
    // The schedule's clock starts once every process has its session (Node start-up is slow).
    let startTimer: NodeJS.Timeout | undefined;
    await Promise.race([up, new Promise<void>((resolve) => (startTimer = setTimeout(resolve, 60_000)))]);
    clearTimeout(startTimer);
    if (sessionsUp < workers) throw new Error(`runNemesis: only ${sessionsUp} of ${workers} workers connected within 60 s:\n${all.map((p) => `${p.name}: ${p.stderr.trim().slice(-1000)}`).join('\n')}`);
    log(`nemesis seed=${options.seed}: ${workers} processes, ${lanes} lanes of ${schedules.map((x) => x.length).join('+')} faults over ${options.faultMs} ms, session ${sessionTimeoutMs} ms, kinds ${kinds.join(',')}`);

    // ---------------------------------------------------------------- targets
    const live = (): NemesisProcess[] => slots.filter((p) => p.running);
    // A process under one lane's fault is not another lane's target (two pauses would end each other).
    const busy = new Set<NemesisProcess>();
    // One fault on the ensemble at a time: two members down would take the quorum away.
    let ensembleBusy = false;
    /** The client port of the member stalled now: expiries go to the others. */
    let stalledPort: number | undefined;
    const chooseProcess = (step: FaultStep, claimed: NemesisProcess[]): NemesisProcess | undefined => {
      const candidates = live().filter((p) => !busy.has(p));
      const holders = candidates.filter((p) => holding.has(p.name));
      const pool = step.target === 'holder' && holders.length > 0 ? holders : candidates;
      const proc = pool[Math.floor(step.pick * pool.length)];
      if (proc) {
        busy.add(proc);
        claimed.push(proc);
      }
      return proc;
    };
    const queue = (): Promise<Array<{ path: string }>> => operator.childrenByAge(options.lockPath);
    /** The member a process is connected to now (its proxy with an open connection), if any. */
    const memberOf = (proc: NemesisProcess): ClusterMember | undefined => {
      const i = proxies[proc.slot]!.findIndex((proxy) => proxy.connectionCount > 0);
      return i < 0 ? undefined : options.cluster?.servers.find((m) => m.port === ports[i]);
    };
    /** The server to stall: the target process's (a stall does not claim the process), the leader's, or any. */
    const chooseServer = async (step: FaultStep, cluster: TestingCluster): Promise<{ member: ClusterMember; proc?: NemesisProcess }> => {
      if (step.server === 'client') {
        const candidates = live();
        const holders = candidates.filter((p) => holding.has(p.name));
        const pool = step.target === 'holder' && holders.length > 0 ? holders : candidates;
        const proc = pool[Math.floor(step.pick * pool.length)];
        const member = proc ? memberOf(proc) : undefined;
        if (proc && member) return { member, proc };
      }
      if (step.server === 'leader') {
        const leader = await cluster.leader(5_000).catch(() => undefined);
        if (leader) return { member: leader };
      }
      return { member: cluster.servers[Math.floor(step.pick * cluster.servers.length)]! };
    };
    const expiryConnectString = (): string =>
      stalledPort === undefined ? options.connectString : options.connectString.split(',').filter((hp) => !hp.endsWith(`:${stalledPort}`)).join(',') || options.connectString;

    // While a process's requests are held, keep its watches firing: the server still talks to it.
    const chatterPath = `${options.lockPath}.chatter`;
    await operator.session.mkdirp(chatterPath);
    const chatter = async (worker: string, until: bigint): Promise<void> => {
      for (let i = 0; now() < until; i = (i + 1) % CHATTER_NODES) {
        const path = `${chatterPath}/${worker}-${i}`;
        try {
          await operator.session.create(path, null, { mode: 'persistent' });
          await operator.session.delete(path);
        } catch {
          // A node left over, a connection blip: the chatter is best effort.
        }
        await sleep(Math.min(80, Math.max(0, Number(until - now()) / 1e6)));
      }
    };

    // ---------------------------------------------------------------- one fault
    const execute = async (step: FaultStep, lane: number, claimed: NemesisProcess[]): Promise<FaultRecord> => {
      const begin = now();
      const record = (fields: Partial<FaultRecord>): FaultRecord => ({ step, lane, start: begin, end: now(), ...fields });
      switch (step.kind) {
        case 'kill': {
          const proc = chooseProcess(step, claimed);
          if (!proc) return record({ skipped: 'no process' });
          killed.add(proc);
          const at = now();
          proc.signal('SIGKILL');
          await proc.exited;
          start(proc.slot);
          return { step, lane, start: at, end: proc.exitedAt ?? now(), worker: proc.name };
        }
        case 'pause-short':
        case 'pause-long': {
          const proc = chooseProcess(step, claimed);
          if (!proc) return record({ skipped: 'no process' });
          const at = now();
          proc.signal('SIGSTOP');
          await sleep(step.durationMs);
          const end = now();
          proc.signal('SIGCONT');
          pauses.push({ worker: proc.name, start: at, end });
          return { step, lane, start: at, end, worker: proc.name };
        }
        case 'partition':
        case 'partition-requests':
        case 'partition-replies': {
          const proc = chooseProcess(step, claimed);
          if (!proc) return record({ skipped: 'no process' });
          const at = now();
          for (const proxy of proxies[proc.slot]!) {
            if (step.kind === 'partition') void proxy.blackhole();
            else if (step.kind === 'partition-requests') proxy.holdRequests();
            else proxy.holdReplies();
          }
          if (step.kind === 'partition-requests') await chatter(proc.name, at + BigInt(step.durationMs) * NS_PER_MS);
          else await sleep(step.durationMs);
          for (const proxy of proxies[proc.slot]!) proxy.heal();
          return { step, lane, start: at, end: now(), worker: proc.name };
        }
        case 'expire': {
          const proc = chooseProcess(step, claimed);
          const creds = proc ? credentials.get(proc.name) : undefined;
          if (!proc || !creds) return record({ skipped: 'no session' });
          const at = now();
          await expireSession(expiryConnectString(), { sessionId: Buffer.from(creds.session, 'hex'), password: Buffer.from(creds.password, 'hex') });
          const done = now();
          expiries.push({ session: creds.session, start: at, done });
          return { step, lane, start: at, end: done, worker: proc.name };
        }
        case 'drop-create': {
          const proc = chooseProcess(step, claimed);
          if (!proc) return record({ skipped: 'no process' });
          // Armed on each of its proxies (it may move to another server meanwhile); the first to
          // drop disarms the others.
          const disarm = new AbortController();
          let droppedAt: bigint | undefined;
          const dropped = new Promise<boolean>((resolve) => {
            for (const proxy of proxies[proc.slot]!) {
              void proxy.dropNextRequest(OP_CREATE2, { signal: disarm.signal }).then((cut) => {
                if (!cut) return;
                droppedAt ??= now();
                resolve(true);
              });
            }
          });
          const fired = await Promise.race([dropped, sleep(step.durationMs).then(() => false)]);
          disarm.abort();
          if (!fired || droppedAt === undefined) return record({ skipped: 'no create sent', worker: proc.name });
          return { step, lane, start: droppedAt, end: droppedAt, worker: proc.name };
        }
        case 'delete-holder':
        case 'delete-waiter': {
          const nodes = await queue();
          const candidates = step.kind === 'delete-holder' ? nodes.slice(0, 1) : nodes.slice(1);
          const victim = candidates[Math.floor(step.pick * candidates.length)];
          if (!victim) return record({ skipped: 'no such node' });
          const d = await operator.deleteNode(victim.path);
          if (d.deleted) deletes.push({ path: d.path, start: d.start, done: d.done });
          return { step, lane, start: d.start, end: d.done, paths: [d.path], ...(d.deleted ? {} : { skipped: 'already gone' }) };
        }
        case 'delete-all': {
          const records = await operator.deleteAll(options.lockPath, { order: step.order ?? 'youngest-first', seed: step.seed, includeSelf: true });
          for (const d of records) if (d.deleted) deletes.push({ path: d.path, start: d.start, done: d.done });
          const gone = records.filter((d) => d.deleted);
          return record({ paths: gone.map((d) => d.path), ...(gone.length === 0 ? { skipped: 'nothing to delete' } : {}) });
        }
        case 'write-holder':
        case 'write-waiter': {
          const nodes = await queue();
          const candidates = step.kind === 'write-holder' ? nodes.slice(0, 1) : nodes.slice(1);
          const victim = candidates[Math.floor(step.pick * candidates.length)];
          if (!victim) return record({ skipped: 'no such node' });
          const bytes = step.write === 'revoke' ? Buffer.from(REVOKE_MARKER) : new Prng(step.seed).bytes(1 + (step.seed % 32));
          const w = await operator.writeData(victim.path, bytes);
          return { step, lane, start: w.start, end: w.done, paths: [w.path], ...(w.written ? {} : { skipped: 'already gone' }) };
        }
        case 'leader-kill':
        case 'leader-pause': {
          if (!options.cluster) return record({ skipped: 'no ensemble' });
          if (ensembleBusy) return record({ skipped: 'another ensemble fault runs' });
          ensembleBusy = true;
          try {
            await options.cluster.failLeader(step.kind === 'leader-kill' ? 'kill' : 'pause');
          } finally {
            ensembleBusy = false;
          }
          return record({});
        }
        case 'server-stall': {
          const cluster = options.cluster;
          if (!cluster) return record({ skipped: 'no ensemble' });
          if (ensembleBusy) return record({ skipped: 'another ensemble fault runs' });
          ensembleBusy = true;
          try {
            const { member, proc } = await chooseServer(step, cluster);
            const leader = (await member.mode()) === 'leader';
            const at = now();
            stalledPort = member.port;
            try {
              await member.pause();
              await sleep(step.durationMs);
            } finally {
              await member.resume();
              stalledPort = undefined;
            }
            return { step, lane, start: at, end: now(), ...(proc ? { worker: proc.name } : {}), server: { id: member.id, leader } };
          } finally {
            ensembleBusy = false;
          }
        }
      }
    };

    // ---------------------------------------------------------------- the schedule
    const startedAt = Date.now();
    const runLane = async (lane: number): Promise<void> => {
      for (const step of schedules[lane]!) {
        // Slow faults (leader elections) push the schedule back: the fault phase still ends on time.
        if (Date.now() - startedAt >= options.faultMs) break;
        const wait = startedAt + step.atMs - Date.now();
        if (wait > 0) await sleep(wait);
        const claimed: NemesisProcess[] = [];
        let rec: FaultRecord;
        try {
          rec = await execute(step, lane, claimed);
        } catch (err) {
          // The operator's own session may be in trouble (a leader failure): note it and go on. A
          // deleteall that failed half-way still deleted what it deleted: those count.
          const sent = err instanceof OperatorError ? err.records.filter((d) => d.deleted) : [];
          for (const d of sent) deletes.push({ path: d.path, start: d.start, done: d.done });
          rec =
            sent.length > 0
              ? { step, lane, start: sent[0]!.start, end: now(), paths: sent.map((d) => d.path), failed: (err as Error).message }
              : { step, lane, start: now(), end: now(), skipped: `failed: ${(err as Error).message}` };
        } finally {
          for (const p of claimed) busy.delete(p);
        }
        faults.push(rec);
        const detail = rec.skipped
          ? `skipped (${rec.skipped})`
          : [
              rec.server ? `server ${rec.server.id}${rec.server.leader ? ' (leader)' : ''}${rec.worker ? ' of' : ''}` : '',
              rec.worker,
              rec.paths?.map((p) => p.slice(p.lastIndexOf('/') + 1)).join(' '),
              rec.failed ? `(then failed: ${rec.failed})` : '',
            ]
              .filter(Boolean)
              .join(' ');
        log(`[${ms(rec.start)}] ${lane}#${step.index} ${step.kind}${step.durationMs ? ` ${step.durationMs}ms` : ''}${step.write ? ` ${step.write}` : ''}${step.order ? ` ${step.order}` : ''} ${detail}`);
      }
    };
    await Promise.all(Array.from({ length: lanes }, (_, lane) => runLane(lane)));

    // ---------------------------------------------------------------- calm tail
    calmStart = now();
    for (const p of live()) p.calm();
    await sleep(calmMs);
    // On a busy machine the ensemble and the processes take longer to come back from the last
    // faults: the tail goes on, up to calmMs × the run's slowness, until every process has had a
    // section in it (on an idle machine it ends at calmMs, as before).
    const calmBound = calmStart + BigInt(Math.round(calmMs * load.slowness(t0).factor)) * NS_PER_MS;
    while (calmSections < workers && now() < calmBound) await sleep(100);
    calmEnd = now();
    const stopped = await Promise.all(live().map(async (p) => ({ p, ok: await p.stop(Math.max(20_000, sessionTimeoutMs * 4)) })));
    for (const { p, ok } of stopped) if (!ok) problems.push(`${p.name} did not stop cleanly (exit ${p.exitCode ?? p.exitSignal}): ${p.stderr.trim().slice(-2000)}`);
  } finally {
    load.stop();
    for (const p of all) {
      if (p.running) {
        p.signal('SIGCONT');
        p.signal('SIGKILL');
      }
    }
    await Promise.all(all.map((p) => p.exited));
    await Promise.all(proxies.flat().map((p) => p.close()));
    // Leave the server as we found it (a user's ensemble, with ZK_CONNECT): best effort.
    for (const path of [options.lockPath, `${options.lockPath}.chatter`]) await operator.deleteAll(path).catch(() => undefined);
    await operator.close();
  }
  const runEnd = now();
  for (const p of all) {
    if (!killed.has(p) && p.exitCode !== 0 && !problems.some((x) => x.startsWith(`${p.name} `))) {
      problems.push(`${p.name} died (exit ${p.exitCode ?? p.exitSignal}): ${p.stderr.trim().slice(-2000)}`);
    }
  }

  const deaths: Record<string, bigint> = {};
  for (const p of all) if (killed.has(p) && p.exitedAt !== undefined) deaths[p.name] = p.exitedAt;
  const check = checkHolds({
    holds: [...holds.values()],
    deaths,
    runEnd,
    deletes,
    expiries,
    pauses,
    sessionTimeoutMs,
    maxConcurrent: options.maxConcurrent ?? 1,
  });
  const lookback = BigInt(sessionTimeoutMs * 2) * NS_PER_MS;
  const suspects = check.overlaps.map((o) => faults.filter((f) => !f.skipped && f.start <= o.start && f.end + lookback >= o.start));
  // A process that died waiting stopped waiting then; one stopped at the end of the run, there.
  for (const [worker, wait] of waiting) wait.end = deaths[worker] ?? null;
  // Liveness counts from the first grant: before it the lock's directories are still being made
  // and every process is starting up.
  const firstGrant = check.holds.reduce<bigint | undefined>((min, h) => (min === undefined || h.granted < min ? h.granted : min), undefined);
  // (A gap open at the first grant, possible with several leases, is counted from it.)
  const idleGaps = findIdleGaps({ holds: check.holds, waits: [...waits.values()], maxConcurrent: options.maxConcurrent ?? 1, runEnd: calmEnd ?? runEnd })
    .filter((g) => firstGrant !== undefined && g.end > firstGrant)
    .map((g) => (g.start < firstGrant! ? { ...g, start: firstGrant! } : g))
    .sort((a, b) => (b.end - b.start > a.end - a.start ? 1 : b.end - b.start < a.end - a.start ? -1 : 0));
  const faultsNear = (g: IdleGap): FaultRecord[] => faults.filter((f) => !f.skipped && f.start <= g.end && f.end + lookback >= g.start);
  const idleGapFaults = idleGaps.slice(0, 10).map(faultsNear);
  const quietIdleGaps = idleGaps.filter((g) => faultsNear(g).length === 0);
  const idleBounds = { ...idleBoundsFor(sessionTimeoutMs), ...options.idleBoundsMs };
  const acted = faults.filter((f) => !f.skipped).map((f) => ({ kind: f.step.kind, start: f.start, end: f.end }));
  // A gap's slowness: the machine's over the gap and the second before it (the hand-off began there).
  const slownessOf = (g: IdleGap): number => load.slowness(g.start - 1_000n * NS_PER_MS, g.end).factor;
  const boundOf = (g: IdleGap): number => idleBoundMs(g, acted, sessionTimeoutMs, idleBounds.quiet, slownessOf(g));
  const idleViolations = idleGaps
    .filter((g) => g.end - g.start > BigInt(Math.round(boundOf(g))) * NS_PER_MS)
    .map((g) => ({ ...g, boundMs: boundOf(g), slowness: slownessOf(g) }));
  const slowness = load.slowness(t0, runEnd);
  const deadlineAllowance = { slackMs: SETTLE_SLACK_MS, toleranceMs: Math.round((options.deadlineToleranceMs ?? DEADLINE_TOLERANCE_MS) * slowness.factor) };
  const deadlines = checkDeadlines({ acquisitions: [...acquisitions.values()], pauses, deaths, runEnd, ...deadlineAllowance });
  const deadlineMissFaults = deadlines.misses.map((m) => {
    const until = m.acquisition.settledAt ?? m.boundAt;
    return faults.filter((f) => !f.skipped && f.start <= until && f.end >= m.acquisition.calledAt);
  });
  return {
    seed: options.seed,
    t0,
    faultMs: options.faultMs,
    calmMs: Math.round(Number((calmEnd ?? now()) - (calmStart ?? now())) / 1e6),
    sessionTimeoutMs,
    workers,
    processesStarted: all.length,
    faults,
    counts: countKinds(faults.filter((f) => !f.skipped).map((f) => f.step.kind)),
    sections,
    calmSections,
    downgrades,
    gaveUp,
    acquireFailures,
    check,
    overlaps: check.overlaps,
    suspects,
    problems,
    states,
    idleGaps,
    idleGapFaults,
    quietIdleGaps,
    idleBounds,
    idleViolations,
    slowness,
    deadlines,
    deadlineMisses: deadlines.misses,
    deadlineMissFaults,
    deadlineAllowance,
  };
}

/**
 * What failed, if anything, in one line per kind, with the figures: exclusion (two holders at
 * once: a safety bug), a process's problem, the lock left free while someone waited for longer
 * than its bound (liveness on this machine: `slow`), a deadline missed (`slow` past its slack and
 * tolerance). `ok: ...` when nothing did.
 */
export function nemesisVerdict(result: NemesisResult): string {
  const lines: string[] = [];
  if (result.overlaps.length > 0) {
    const worst = result.overlaps.reduce((a, b) => (b.concurrent > a.concurrent ? b : a));
    lines.push(`EXCLUSION BROKEN: ${result.overlaps.length} period(s) with more holders at once than allowed (up to ${worst.concurrent}); see the overlaps below`);
  }
  for (const p of result.problems) lines.push(`PROCESS PROBLEM: ${p.split('\n')[0]}`);
  if (result.idleViolations.length > 0) {
    const v = result.idleViolations.reduce((a, b) => (Number(b.end - b.start) - b.boundMs * 1e6 > Number(a.end - a.start) - a.boundMs * 1e6 ? b : a));
    lines.push(
      `slow: ${result.idleViolations.length} idle gap(s) over their bound: the lock free ${(Number(v.end - v.start) / 1e6).toFixed(0)} ms while ${v.waiters.join(' ')} waited, bound ${v.boundMs.toFixed(0)} ms (${result.idleBounds.quiet} ms and the faults' work × ${v.slowness.toFixed(1)} slowness, plus the faults' own length)`,
    );
  }
  if (result.calmSections < result.workers) lines.push(`slow: ${result.calmSections} sections in the ${result.calmMs} ms calm tail, fewer than the ${result.workers} processes`);
  if (result.deadlineMisses.length > 0) {
    const m = result.deadlineMisses[0]!;
    const { slackMs, toleranceMs } = result.deadlineAllowance;
    lines.push(`slow: ${result.deadlineMisses.length} acquisition(s) settled past their deadline or abort + ${slackMs} ms slack + ${toleranceMs} ms tolerance; the latest ${m.latenessMs.toFixed(0)} ms late (${m.outcome})`);
  }
  const machine = `machine slowness ${describeSlowness(result.slowness)}`;
  if (lines.length === 0) return `ok: exclusion held (0 overlaps), no idle gap over its bound, no deadline missed; ${machine}`;
  if (result.overlaps.length === 0) lines.push(`exclusion held: 0 overlaps`);
  return [...lines, machine].join('\n');
}

/** A human summary of a run: its verdict, seed, counts, sections, overlaps with their suspects. */
export function describeNemesis(result: NemesisResult): string {
  const counts = Object.entries(result.counts)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k}=${n}`)
    .join(' ');
  const failures = Object.entries(result.acquireFailures)
    .map(([k, n]) => `${k}=${n}`)
    .join(' ');
  const lines = [
    nemesisVerdict(result),
    `seed ${result.seed}: ${(result.faultMs / 60_000).toFixed(2)} min of faults + ${result.calmMs} ms calm, ${result.workers} processes (${result.processesStarted} started), session ${result.sessionTimeoutMs} ms`,
    `faults: ${counts || 'none'} (${result.faults.filter((f) => f.skipped).length} skipped)`,
    `sections: ${result.sections} (${result.calmSections} in the calm tail)${result.downgrades > 0 ? `, ${result.downgrades} of them downgrades` : ''}; waiters gave up: ${result.gaveUp}; acquire failures: ${failures || 'none'}`,
    `overlaps: ${result.overlaps.length}`,
  ];
  // Seconds since the run's start, as in the fault log.
  const s = (t: bigint): string => `${(Number(t - result.t0) / 1e9).toFixed(3)}s`;
  result.overlaps.forEach((o, i) => {
    const holders = o.holds.map((h) => `${h.worker}#${h.id} ${h.path.slice(h.path.lastIndexOf('/') + 1)} [${s(h.granted)}, ${s(h.effectiveEnd)}]${h.cutBy ? ` cut:${h.cutBy}` : ''}${h.endedBy ? ` ended:${h.endedBy}` : ''}${h.note ? ` (${h.note})` : ''}`);
    const suspects = result.suspects[i]!.map((f) => `${f.lane}#${f.step.index} ${f.step.kind}${f.worker ? ` ${f.worker}` : ''} [${s(f.start)}, ${s(f.end)}]`);
    lines.push(`  overlap ${i + 1} at ${s(o.start)}: ${Number(o.end - o.start) / 1e6} ms, ${o.concurrent} holders: ${holders.join(' | ')}; recent faults: ${suspects.join(', ') || 'none'}`);
    // What each holder's session went through in the two session timeouts before, and just after.
    const window = BigInt(result.sessionTimeoutMs * 2) * 1_000_000n;
    for (const worker of new Set(o.holds.map((h) => h.worker))) {
      const near = (result.states[worker] ?? []).filter((x) => x.t >= o.start - window && x.t <= o.end + window / 2n);
      if (near.length > 0) lines.push(`    ${worker} session: ${near.map((x) => `${x.state}@${s(x.t)}`).join(' ')}`);
    }
  });
  const gapMs = (g: IdleGap): string => (Number(g.end - g.start) / 1e6).toFixed(1);
  const quiet = result.quietIdleGaps;
  lines.push(
    `idle gaps (lock free while someone waited): ${result.idleGaps.length}, longest ${result.idleGaps[0] ? gapMs(result.idleGaps[0]) : 0} ms; ${quiet.length} with no fault near, longest ${quiet[0] ? gapMs(quiet[0]) : 0} ms; over their bound (${result.idleBounds.quiet} ms and the faults' allowances, their work × the machine's slowness): ${result.idleViolations.length}`,
  );
  for (const v of result.idleViolations) lines.push(`  OVER BOUND (slow): idle ${gapMs(v)} ms at ${s(v.start)}, bound ${v.boundMs.toFixed(0)} ms (slowness ×${v.slowness.toFixed(1)}), waiting: ${v.waiters.join(' ')}`);
  result.idleGaps.slice(0, 5).forEach((g, i) => {
    const near = result.idleGapFaults[i]!.map((f) => `${f.lane}#${f.step.index} ${f.step.kind}${f.worker ? ` ${f.worker}` : ''} [${s(f.start)}, ${s(f.end)}]`);
    lines.push(`  idle ${gapMs(g)} ms at ${s(g.start)}, waiting: ${g.waiters.join(' ')}; faults near: ${near.join(', ') || 'none'}`);
  });
  for (const g of quiet.slice(0, 3)) {
    const around = (w: string) => (result.states[w] ?? []).filter((x) => x.t >= g.start - 2_000_000_000n && x.t <= g.end).map((x) => `${x.state}@${s(x.t)}`).join(' ');
    lines.push(`  quiet idle ${gapMs(g)} ms at ${s(g.start)}, waiting: ${g.waiters.map((w) => `${w}${around(w) ? ` (${around(w)})` : ''}`).join(', ')}`);
  }
  const d = result.deadlines;
  const { slackMs, toleranceMs } = result.deadlineAllowance;
  const worst = d.worst ? ` (${d.worst.worker}#${d.worst.id})` : '';
  lines.push(
    `deadlines (settled by deadline or abort + ${slackMs} ms slack + ${toleranceMs} ms tolerance): ${d.checked} checked, ${d.stretchedByPauses} stretched by pauses of their process; worst lateness ${d.worstLatenessMs.toFixed(1)} ms${worst}; missed: ${d.misses.length}`,
  );
  result.deadlineMisses.slice(0, 10).forEach((m, i) => {
    const a = m.acquisition;
    const near = result.deadlineMissFaults[i]!.map((f) => `${f.lane}#${f.step.index} ${f.step.kind}${f.server ? ` server ${f.server.id}${f.server.leader ? '(leader)' : ''}` : ''}${f.worker ? ` ${f.worker}` : ''} [${s(f.start)}, ${s(f.end)}]`);
    lines.push(
      `  MISSED: ${a.worker}#${a.id} called ${s(a.calledAt)}, due by ${m.dueBy} ${s(m.dueAt)}, ${m.outcome}${a.settledAt !== null ? ` ${s(a.settledAt)}` : ''}${a.code ? ` ${a.code}` : ''}: ${m.latenessMs.toFixed(0)} ms late; faults: ${near.join(', ') || 'none'}`,
    );
  });
  for (const p of result.problems) lines.push(`  problem: ${p}`);
  return lines.join('\n');
}
