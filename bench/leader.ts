/**
 * Leader election benchmark: zk-recipes' LeaderLatch beside Apache Curator 5.4's, in ONE run
 * against ONE ZooKeeper server (fsync on), repetitions interleaved (ours, Curator, Curator, ours,
 * ...) so that the load of a shared machine hits both alike. Each side: 4 participants in 4
 * processes on one election, 2 s sessions. Measured, on CLOCK_MONOTONIC across processes:
 *
 * - **close()**: from the moment right before the leader calls `close()` to the next leader's
 *   `isLeader` (a hand-over: the leader's delete and one notification);
 * - **SIGKILL**: from the leader's process being killed to the next leader's `isLeader` (the
 *   server must expire the dead session first: a session timeout after its last request).
 *
 * Usage: npm run bench:leader -- [--reps N] [--closes N] [--kills N] [--quick] [--json]
 * Starts a fresh TestingServer unless ZK_CONNECT is set. Prints markdown.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ZkSession } from '@zk-recipes/core';
import { nodeScriptArgs, spawnCuratorWorker, TestingServer, type CuratorWorker } from '@zk-recipes/testing';
import { SMALL_JVM, untilChildren } from './lib/fleets.js';
import { numberFlag } from './lib/flags.js';
import { machineInfo, zookeeperVersion, type MachineInfo } from './lib/machine.js';
import { fmtMs, fmtRatio, median, percentile } from './lib/stats.js';
import { markdownTable } from './lib/table.js';

const OUR_WORKER = fileURLToPath(new URL('./workers/leaderLatch.ts', import.meta.url));
const SESSION_MS = 2000;
const PARTICIPANTS = 4;
type Side = 'ours' | 'curator';

interface Options {
  reps: number;
  /** Hand-overs by close() per repetition (after `warmup` unmeasured ones). */
  closes: number;
  /** Leaders killed per repetition. */
  kills: number;
  warmup: number;
}

const DEFAULT: Options = { reps: 3, closes: 20, kills: 5, warmup: 3 };

interface Line {
  type: string;
  worker?: string;
  t?: string;
  end?: string;
  why?: string;
  [key: string]: unknown;
}

/** One participant process, either side: its lines as they come, and how to command it. */
interface Participant {
  readonly side: Side;
  readonly id: string;
  readonly child: ChildProcess;
  readonly lines: readonly Line[];
  tell(command: 'resign' | 'stop'): void;
  exited: Promise<void>;
}

/** The lines of every participant of one election, in arrival order, and waits on them. */
class Election {
  readonly participants: Participant[] = [];
  /** `leader` lines in arrival order, with who printed them. */
  readonly leaders: Array<{ id: string; t: bigint }> = [];
  private readonly wakers = new Set<() => void>();

  constructor(
    readonly side: Side,
    readonly connectString: string,
    readonly path: string,
  ) {}

  onLine(id: string, line: Line): void {
    if (line.type === 'leader') this.leaders.push({ id, t: BigInt(String(line.t)) });
    for (const wake of [...this.wakers]) wake();
  }

  until<T>(condition: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const value = condition();
        if (value === undefined) return;
        this.wakers.delete(check);
        clearTimeout(timer);
        resolve(value);
      };
      const timer = setTimeout(() => {
        this.wakers.delete(check);
        reject(new Error(`bench:leader ${this.side}: not within ${timeoutMs} ms: ${what}`));
      }, timeoutMs);
      this.wakers.add(check);
      check();
    });
  }

  async join(id: string): Promise<Participant> {
    const participant = this.side === 'ours' ? await this.startOurs(id) : await this.startCurator(id);
    this.participants.push(participant);
    await this.until(() => (participant.lines.some((l) => l.type === 'ready') ? true : undefined), 60_000, `${id} ready`);
    return participant;
  }

  private async startOurs(id: string): Promise<Participant> {
    const env = { ...process.env };
    delete env['ZKR_REPORT']; // lines as they happen: the bench acts on them
    const child = spawn(process.execPath, [...nodeScriptArgs(OUR_WORKER), this.connectString, this.path, String(SESSION_MS), id], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const lines: Line[] = [];
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr = (stderr + c).slice(-4000)));
    child.stdin!.on('error', () => undefined);
    createInterface({ input: child.stdout! }).on('line', (text) => {
      if (!text.startsWith('{')) return;
      const line = JSON.parse(text) as Line;
      lines.push(line);
      this.onLine(id, line);
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    void exited.then(() => {
      if (child.exitCode !== 0 && child.signalCode !== 'SIGKILL') process.stderr.write(`bench:leader: ${id} exited ${child.exitCode}: ${stderr}\n`);
    });
    return { side: 'ours', id, child, lines, tell: (command) => child.stdin!.write(`${command}\n`), exited };
  }

  private async startCurator(id: string): Promise<Participant> {
    const env = { ...process.env };
    delete env['ZKR_REPORT'];
    const worker: CuratorWorker = await spawnCuratorWorker(['--session-timeout-ms', String(SESSION_MS), 'leader-latch', this.connectString, this.path, id, '0'], { javaOptions: SMALL_JVM, env });
    const seen = { count: 0 };
    const lines: Line[] = [];
    // The worker parses its lines; mirror them as they come.
    const poll = setInterval(() => {
      while (seen.count < worker.lines.length) {
        const line = worker.lines[seen.count++] as unknown as Line;
        lines.push(line);
        this.onLine(id, line);
        // Curator's term ends right before its close(): a `section` line, why `resign`.
        if (line.type === 'section' && line.why === 'resign') {
          const closing: Line = { type: 'closing', t: line.end };
          lines.push(closing);
          this.onLine(id, closing);
        }
      }
    }, 1);
    const exited = new Promise<void>((resolve) => worker.child.once('exit', () => resolve()));
    void exited.then(() => clearInterval(poll));
    return { side: 'curator', id, child: worker.child, lines, tell: (command) => worker.child.stdin!.write(`${command}\n`), exited };
  }

  /** The participant that leads now: the one of the last `leader` line, if it still runs. */
  currentLeader(): Participant | undefined {
    const last = this.leaders.at(-1);
    return last === undefined ? undefined : this.participants.find((p) => p.id === last.id && p.child.exitCode === null && p.child.signalCode === null);
  }

  async stop(): Promise<void> {
    for (const p of this.participants) if (p.child.exitCode === null && p.child.signalCode === null) p.tell('stop');
    await Promise.race([Promise.all(this.participants.map((p) => p.exited)), new Promise((resolve) => setTimeout(resolve, 20_000))]);
    for (const p of this.participants) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  }
}

interface SideResult {
  /** close() to the next isLeader, ms. */
  closeMs: number[];
  /** SIGKILL to the next isLeader, ms. */
  killMs: number[];
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** One repetition of one side: 4 participants, `closes` hand-overs by close(), `kills` by SIGKILL. */
async function runSide(side: Side, connectString: string, observer: ZkSession, rep: number, options: Options, into: SideResult): Promise<void> {
  const path = `/bench/leader/${side}-${rep}-${Date.now()}`;
  const election = new Election(side, connectString, path);
  let joined = 0;
  try {
    for (let i = 0; i < PARTICIPANTS; i++) await election.join(`${side}-${joined++}`);
    await untilChildren(observer, path, PARTICIPANTS, 60_000);
    await election.until(() => election.currentLeader(), 30_000, 'a first leader');
    // close(): the leader resigns (and joins again at the end of the queue).
    for (let round = 0; round < options.warmup + options.closes; round++) {
      await untilChildren(observer, path, PARTICIPANTS, 30_000);
      const leader = election.currentLeader()!;
      const before = election.leaders.length;
      const closings = leader.lines.filter((l) => l.type === 'closing').length;
      leader.tell('resign');
      const next = await election.until(() => election.leaders.slice(before).find((l) => l.id !== leader.id), 30_000, 'the next leader after close()');
      const closing = await election.until(() => leader.lines.filter((l) => l.type === 'closing')[closings], 30_000, 'the closing line');
      if (round >= options.warmup) into.closeMs.push(Number(next.t - BigInt(String(closing.t))) / 1e6);
      await sleep(20);
    }
    // SIGKILL: the leader dies; a new process takes its place in the queue afterwards.
    for (let round = 0; round < options.kills; round++) {
      await untilChildren(observer, path, PARTICIPANTS, 30_000);
      // A moment with no request in flight, as a process dies at any time.
      await sleep(100 + Math.random() * 400);
      const leader = election.currentLeader()!;
      const before = election.leaders.length;
      const killedAt = process.hrtime.bigint();
      leader.child.kill('SIGKILL');
      const next = await election.until(() => election.leaders.slice(before).find((l) => l.id !== leader.id), SESSION_MS * 5, 'the next leader after SIGKILL');
      into.killMs.push(Number(next.t - killedAt) / 1e6);
      await leader.exited;
      await election.join(`${side}-${joined++}`);
    }
  } finally {
    await election.stop();
  }
}

interface Report {
  machine: MachineInfo;
  zookeeper: string;
  options: Options;
  results: Record<Side, SideResult>;
}

async function runLeaderBench(connectString: string, options: Options): Promise<Report> {
  const observer = await ZkSession.connect({ connectString });
  const results: Record<Side, SideResult> = { ours: { closeMs: [], killMs: [] }, curator: { closeMs: [], killMs: [] } };
  try {
    await observer.mkdirp('/bench/leader');
    for (let rep = 0; rep < options.reps; rep++) {
      const order: Side[] = rep % 2 === 0 ? ['ours', 'curator'] : ['curator', 'ours'];
      for (const side of order) {
        process.stderr.write(`[bench:leader] rep ${rep + 1}/${options.reps}: ${side}\n`);
        await runSide(side, connectString, observer, rep, options, results[side]);
      }
    }
    return { machine: machineInfo(), zookeeper: await zookeeperVersion(connectString), options, results };
  } finally {
    await observer.close();
  }
}

function markdown(report: Report, command: string): string {
  const { ours, curator } = report.results;
  const cell = (samples: number[]): string => `${fmtMs(median(samples), 1)} (p90 ${fmtMs(percentile(samples, 0.9), 1)}; ${fmtMs(Math.min(...samples), 1)}-${fmtMs(Math.max(...samples), 1)}; ${samples.length})`;
  const row = (what: string, a: number[], b: number[]): string[] => [what, cell(a), cell(b), fmtRatio(median(a) / median(b))];
  const m = report.machine;
  return [
    `Leader election: time to the next leader's isLeader, ${PARTICIPANTS} participants in ${PARTICIPANTS} processes, ${SESSION_MS / 1000} s sessions`,
    '',
    markdownTable(['leader gone by', 'zk-recipes LeaderLatch: median (p90; min-max; samples)', 'Curator 5.4 LeaderLatch', 'ours / Curator'], [
      row('close()', ours.closeMs, curator.closeMs),
      row('SIGKILL', ours.killMs, curator.killMs),
    ]),
    '',
    `\`${command}\`: ${report.options.reps} repetitions interleaved, each ${report.options.closes} hand-overs by close() (after ${report.options.warmup} unmeasured) and ${report.options.kills} by SIGKILL; ZooKeeper ${report.zookeeper} (one server, fsync on, tickTime 200 ms); ${m.nproc} cores (${m.cpuModel}), ${m.memoryGiB.toFixed(1)} GiB, Node ${m.node}, load average ${m.loadAverage}.`,
  ].join('\n');
}

function parseArgs(argv: readonly string[]): Options {
  const o = { ...DEFAULT };
  if (argv.includes('--quick')) Object.assign(o, { reps: 1, closes: 5, kills: 1, warmup: 1 });
  o.reps = numberFlag(argv, '--reps', o.reps);
  o.closes = numberFlag(argv, '--closes', o.closes);
  o.kills = numberFlag(argv, '--kills', o.kills);
  return o;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const options = parseArgs(argv);
  const explicit = process.env['ZK_CONNECT'];
  const server = explicit === undefined || explicit === '' ? await TestingServer.start({ forceSync: true }) : undefined;
  try {
    const report = await runLeaderBench(explicit || server!.connectString, options);
    process.stdout.write(`${markdown(report, `npm run bench:leader${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`)}\n`);
    if (argv.includes('--json')) process.stdout.write(`${JSON.stringify(report)}\n`);
  } finally {
    await server?.stop();
  }
}

await main();
