/**
 * The processes of one run of `npm run bench:compare`, driven through window.ts's protocol (Node)
 * or Windowed.java's (Curator): started in waves (each wave connected and at its start line before
 * the next is spawned: 64 JVMs or tsx processes at once on two cores starve the server), then
 * `go` to all, `tick` every 250 ms while they warm up, the `window` line, and their result lines.
 */
import { spawnCuratorWorker, type CuratorWorker } from '@zk-recipes/testing';
import { startInWaves } from '../lib/fleets.js';
import { spawnNodeWorker } from '../lib/nodeWorker.js';

/** One process to start: a Node worker script, or CuratorWorker. */
export type MemberSpec = { kind: 'node'; script: string; args: readonly string[] } | { kind: 'java'; args: readonly string[]; javaOptions: readonly string[] };

/** A worker's result line (window.ts's `finish`, Windowed.java's `finish`). */
export interface WorkerResult {
  worker: string;
  lock: string;
  warmSections: number;
  /** ns from `go` to the end of the 100th section; -1 if it ran fewer. */
  coldNs: number;
  /** CPU used in the window, µs; -1 if the window did not close before the process finished. */
  cpuUs: number;
  /** Five numbers per measured section: acquire called, held, hold ended, released (ns from the window's start), key. */
  sections: number[];
}

interface Member {
  name: string;
  /** The last warm-up count it printed. */
  warm(): number;
  send(line: string): void;
  ready: Promise<void>;
  /** Its result line once it exited 0; rejects otherwise. */
  result: Promise<WorkerResult>;
  exitedEarly(): string | undefined;
  kill(): Promise<void>;
}

function isResult(line: unknown): line is WorkerResult & { type: 'result' } {
  return typeof line === 'object' && line !== null && (line as { type?: unknown }).type === 'result';
}

function nodeMember(script: string, args: readonly string[], name: string): Member {
  let warm = 0;
  let result: WorkerResult | undefined;
  let exit: string | undefined;
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const worker = spawnNodeWorker(script, args, name, (line) => {
    const type = (line as { type?: string }).type;
    if (type === 'ready') markReady();
    else if (type === 'warm') warm = (line as { n: number }).n;
    else if (isResult(line)) result = line;
  });
  const done = worker.exited.then((code) => {
    exit = `${name} exited with ${code}: ${worker.stderr()}`;
    if (code !== 0 || result === undefined) throw new Error(result === undefined ? `${exit} (no result line)` : exit);
    return result;
  });
  done.catch(() => undefined);
  return {
    name,
    warm: () => warm,
    send: (line) => void worker.child.stdin!.write(`${line}\n`),
    ready: Promise.race([ready, done.then(() => Promise.reject(new Error(`${name} exited before its ready line`)))]),
    result: done,
    exitedEarly: () => (result === undefined ? exit : undefined),
    kill: async () => {
      if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
      await worker.exited;
    },
  };
}

function javaMember(args: readonly string[], javaOptions: readonly string[], name: string): Member {
  let worker: CuratorWorker | undefined;
  let scanned = 0;
  let warm = 0;
  let exit: string | undefined;
  const started = spawnCuratorWorker(args, { javaOptions });
  const ready = started.then((w) => {
    worker = w;
    return w.waitForLine((l) => l.type === 'ready', 180_000).then(() => undefined);
  });
  const result = started.then(async (w) => {
    try {
      const lines = await w.finished(24 * 3600_000);
      const found = lines.find((l) => isResult(l)) as WorkerResult | undefined;
      if (found === undefined) throw new Error(`${name}: no result line; stderr: ${w.stderr}`);
      return found;
    } catch (err) {
      exit = String(err);
      throw err;
    }
  });
  result.catch(() => undefined);
  return {
    name,
    warm() {
      const lines = worker?.lines ?? [];
      for (; scanned < lines.length; scanned++) if (lines[scanned]!.type === 'warm') warm = Number(lines[scanned]!['n']);
      return warm;
    },
    send: (line) => void worker?.child.stdin!.write(`${line}\n`),
    ready,
    result,
    exitedEarly: () => exit,
    kill: async () => {
      await (await started).stop(500);
    },
  };
}

/** A started fleet: every member connected and at its start line. */
export interface Fleet {
  size: number;
  send(line: string): void;
  /** The lowest warm-up count among the members. */
  minWarm(): number;
  /** Why a member ended before the others, if one did. */
  failure(): string | undefined;
  /** Every member's result once all exited 0; rejects (after killing the rest) otherwise, or after `timeoutMs`. */
  results(timeoutMs: number): Promise<WorkerResult[]>;
  stop(): Promise<void>;
}

export async function startFleet(specs: readonly MemberSpec[], wave = 16): Promise<Fleet> {
  const stopAll = async (members: readonly Member[]): Promise<void> => {
    await Promise.all(members.map((m) => m.kill()));
  };
  const spawnMember = (i: number): Member => {
    const s = specs[i]!;
    return s.kind === 'node' ? nodeMember(s.script, s.args, `worker-${i}`) : javaMember(s.args, s.javaOptions, `worker-${i}`);
  };
  const members = await startInWaves(specs.length, wave, spawnMember, (m) => m.ready, stopAll);
  const stop = (): Promise<void> => stopAll(members);
  return {
    size: members.length,
    send: (line) => members.forEach((m) => m.send(line)),
    minWarm: () => Math.min(...members.map((m) => m.warm())),
    failure: () => members.map((m) => m.exitedEarly()).find((e) => e !== undefined),
    async results(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the run's processes still running after ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        return await Promise.race([Promise.all(members.map((m) => m.result)), timeout]);
      } catch (err) {
        await stop();
        throw err;
      } finally {
        clearTimeout(timer);
      }
    },
    stop,
  };
}
